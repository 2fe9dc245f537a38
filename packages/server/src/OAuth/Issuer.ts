import { Context, Effect, Layer } from "effect"
import { HttpServer } from "effect/http"
import { AppConfig } from "../Config.js"

const makeIssuer = Effect.gen(function*() {
  const config = yield* AppConfig
  const server = yield* HttpServer.HttpServer
  const address = server.address
  const base = config.baseUrl.replace(/\/+$/, "")
  // An IPv4 or IPv6 address has a port; a Unix socket path has none.
  const issuer = /:0$/.test(base) && address._tag !== "UnixPathAddress" ? base.replace(/:0$/, `:${address.port}`) : base
  return {
    issuer,
    /** `aud` of every access token: the API the tokens are for. */
    audience: `${issuer}/api/v1`,
    authorizationEndpoint: `${issuer}/api/auth/oauth2/authorize`,
    tokenEndpoint: `${issuer}/api/auth/oauth2/token`,
    revocationEndpoint: `${issuer}/api/auth/oauth2/revoke`,
    jwksUri: `${issuer}/api/auth/jwks`,
    signInEndpoint: `${issuer}/api/auth/sign-in`,
    /** Whether cookies must be Secure (an https issuer). */
    secure: issuer.startsWith("https://")
  } as const
})

/**
 * The OAuth issuer (BASE_URL) and the URLs derived from it. When BASE_URL is not set and the server
 * listens on port 0 (tests), the issuer takes the port it was given.
 */
export class Issuer extends Context.Service<Issuer, Effect.Success<typeof makeIssuer>>()("@bizops/server/Issuer") {
  static readonly layer = Layer.effect(Issuer, makeIssuer)
}
