import { clientAddressOf } from "@bizops/domain"
import { Option } from "effect"
import type { HttpServerRequest } from "effect/http"

/** The client's address of a request (domain rule `clientAddressOf`), for the limits kept per address. */
export const clientAddress = (request: HttpServerRequest.HttpServerRequest, trustedProxies: number): string =>
  clientAddressOf(Option.getOrUndefined(request.remoteAddress), request.headers["x-forwarded-for"], trustedProxies)
