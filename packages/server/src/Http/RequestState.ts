import type { Forbidden, Principal, RateLimited, Unauthorized } from "@bizops/domain"
import { Context, type Exit } from "effect"

/**
 * What the server remembers about the request it is answering, while it answers it. The error
 * envelope provides a fresh one to each request (Http/Envelope.ts); the parts that run inside
 * (the idempotency wrapper, the authentication middleware) write to it, so that what one learned
 * the other reads without doing it again.
 */
export interface RequestState {
  /** The outcome of authenticating the request: set when it is first authenticated (and counted). */
  authentication: Exit.Exit<Principal, Unauthorized | Forbidden | RateLimited> | undefined
}

/** The current request's state; undefined outside a request answered through the envelope. */
export const CurrentRequestState = Context.Reference<RequestState | undefined>("@bizops/server/CurrentRequestState", {
  defaultValue: () => undefined
})

export const freshRequestState = (): RequestState => ({ authentication: undefined })
