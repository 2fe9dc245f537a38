import { clientAddressOf, type RateDecision } from "@bizops/domain"
import { Option } from "effect"
import type { HttpServerRequest } from "effect/http"

/**
 * What every limit kept per client (failed credentials, sign-ins, token requests) reads from and writes
 * to the wire, in one place: the client's address, and the Retry-After of a refusal.
 */

/** The client's address of a request (domain rule `clientAddressOf`), for the limits kept per address. */
export const clientAddress = (request: HttpServerRequest.HttpServerRequest, trustedProxies: number): string =>
  clientAddressOf(Option.getOrUndefined(request.remoteAddress), request.headers["x-forwarded-for"], trustedProxies)

/** The Retry-After header of a refused request: whole seconds, as the domain's `decide` counts them. */
export const retryAfterHeader = (after: number | RateDecision): Record<string, string> => ({
  "retry-after": String(typeof after === "number" ? after : after.resetInSeconds)
})
