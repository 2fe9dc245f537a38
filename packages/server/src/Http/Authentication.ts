import { HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Authentication, Forbidden, type Principal, requiredScope, Unauthorized } from "@bizops/domain"
import { Effect, FiberRef, Layer, Option } from "effect"
import { globalValue } from "effect/GlobalValue"
import { AccessRepo } from "../Access/AccessRepo.js"

/** The credential a request carries: `x-api-key`, else `Authorization: Bearer`. */
export const credentialOf = (headers: Readonly<Record<string, string | undefined>>): Option.Option<string> => {
  const apiKey = headers["x-api-key"]
  if (apiKey !== undefined && apiKey.length > 0) return Option.some(apiKey.trim())
  const authorization = headers["authorization"]
  if (authorization === undefined) return Option.none()
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization)
  return match === null ? Option.none() : Option.some(match[1])
}

/**
 * The outcome of authenticating the current request. The middleware's two security schemes (x-api-key
 * and bearer) both read it, so one request is authenticated once.
 */
const Outcome = globalValue(
  Symbol.for("@bizops/server/AuthenticationOutcome"),
  () => FiberRef.unsafeMake<Option.Option<Effect.Effect<Principal, Unauthorized | Forbidden>>>(Option.none())
)

const unauthorized = (message: string) =>
  Effect.zipRight(
    HttpApp.appendPreResponseHandler((_, response) =>
      Effect.succeed(HttpServerResponse.setHeader(response, "www-authenticate", 'Bearer realm="api"'))
    ),
    Effect.fail(new Unauthorized({ message }))
  )

export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function*() {
    const access = yield* AccessRepo

    const authenticate = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const credential = credentialOf(request.headers)
      if (Option.isNone(credential)) {
        return yield* unauthorized("Missing credentials: send x-api-key: KEY or Authorization: Bearer KEY")
      }
      const principal = yield* access.authenticateKey(credential.value)
      if (Option.isNone(principal)) return yield* unauthorized("The API key is not valid or has been revoked")
      const q = request.url.indexOf("?")
      const scope = requiredScope(request.method, q === -1 ? request.url : request.url.slice(0, q))
      if (scope !== undefined && !principal.value.scopes.has(scope)) {
        return yield* Effect.fail(new Forbidden({ message: `This credential lacks the scope ${scope}` }))
      }
      return principal.value
    })

    const once = Effect.flatMap(FiberRef.get(Outcome), (outcome) =>
      Option.match(outcome, {
        onSome: (cached) => cached,
        onNone: () =>
          Effect.flatMap(Effect.exit(authenticate), (exit) =>
            Effect.zipRight(FiberRef.set(Outcome, Option.some(exit)), exit))
      }))

    return { apiKey: () => once, bearer: () => once }
  })
).pipe(Layer.provide(AccessRepo.Default))
