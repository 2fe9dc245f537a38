import { Clock, Context, Effect, Layer } from "effect"
import { calculateJwkThumbprint, decodeProtectedHeader, exportJWK, generateKeyPair, importJWK, type JWK, jwtVerify, SignJWT } from "jose"
import { FastSql } from "../Sql/Fast.js"

/** Access tokens live one hour (section 5); a retired key stays published this long after it retired. */
export const ACCESS_TOKEN_SECONDS = 3600
const ALGORITHM = "EdDSA"

interface KeyRow {
  readonly kid: string
  readonly algorithm: string
  readonly privateJwk: JWK
  readonly publicJwk: JWK
  readonly createdAt: Date
  readonly retiredAt: Date | null
}

type Key = Awaited<ReturnType<typeof importJWK>>

/** The claims of an access token (RFC 9068) that the API reads. */
export interface AccessTokenClaims {
  readonly sub: string
  readonly client_id: string
  readonly scope: string
  readonly organizationId: string
  readonly grant_id: string
  readonly jti: string
}

const newKey = async (): Promise<{ readonly kid: string; readonly privateJwk: JWK; readonly publicJwk: JWK }> => {
  const { privateKey, publicKey } = await generateKeyPair(ALGORITHM, { crv: "Ed25519", extractable: true })
  const publicJwk = await exportJWK(publicKey)
  const kid = await calculateJwkThumbprint(publicJwk)
  return { kid, privateJwk: { ...(await exportJWK(privateKey)), kid, alg: ALGORITHM }, publicJwk: { ...publicJwk, kid, alg: ALGORITHM, use: "sig" } }
}

const isClaims = (payload: Record<string, unknown>): payload is Record<string, unknown> & AccessTokenClaims =>
  typeof payload.sub === "string" && typeof payload.client_id === "string" && typeof payload.scope === "string" &&
  typeof payload.organizationId === "string" && typeof payload.grant_id === "string" && typeof payload.jti === "string"

const makeSigningKeys = Effect.gen(function*() {
  const fast = yield* FastSql
  const imported = new Map<string, Key>()
  // The clock this service was built with, whoever calls it: a caller's fiber may have another one
  // (a test's fiber has @effect/vitest's TestClock, standing at 1970, while the server has the test's).
  const clock = yield* Clock.Clock

  const now = Effect.map(clock.currentTimeMillis, (ms) => new Date(ms))

  /** The keys still published: the current one and those retired less than a token lifetime ago. */
  const published = Effect.flatMap(now, (at) =>
    fast.rows<KeyRow>(
      `SELECT * FROM oauth_signing_keys WHERE retired_at IS NULL OR retired_at > $1 ORDER BY created_at DESC`,
      [new Date(at.getTime() - ACCESS_TOKEN_SECONDS * 1000)]
    ))

  /** Makes a current key when there is none (two instances starting together: one wins, the other reads it). */
  const ensureCurrent = Effect.gen(function*() {
    const [current] = yield* fast.rows<KeyRow>(`SELECT * FROM oauth_signing_keys WHERE retired_at IS NULL`, [])
    if (current !== undefined) return current
    const key = yield* Effect.promise(newKey)
    const [created] = yield* fast.rows<KeyRow>(
      `INSERT INTO oauth_signing_keys (kid, algorithm, private_jwk, public_jwk, created_at)
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING RETURNING *`,
      [key.kid, ALGORITHM, JSON.stringify(key.privateJwk), JSON.stringify(key.publicJwk), yield* now]
    )
    if (created !== undefined) return created
    const [other] = yield* fast.rows<KeyRow>(`SELECT * FROM oauth_signing_keys WHERE retired_at IS NULL`, [])
    return other
  })

  const importKey = (jwk: JWK) =>
    Effect.promise(async () => {
      const cacheKey = `${jwk.kid}:${jwk.d === undefined ? "public" : "private"}`
      let key = imported.get(cacheKey)
      if (key === undefined) {
        key = await importJWK(jwk, ALGORITHM)
        imported.set(cacheKey, key)
      }
      return key
    })

  /** Signs an access token with the current key. */
  const sign = (claims: AccessTokenClaims, options: { readonly issuer: string; readonly audience: string }) =>
    Effect.gen(function*() {
      const current = yield* ensureCurrent
      const key = yield* importKey(current.privateJwk)
      const issuedAt = Math.floor((yield* clock.currentTimeMillis) / 1000)
      return yield* Effect.promise(() =>
        new SignJWT({ ...claims })
          .setProtectedHeader({ alg: ALGORITHM, kid: current.kid, typ: "at+jwt" })
          .setIssuer(options.issuer)
          .setAudience(options.audience)
          .setIssuedAt(issuedAt)
          .setExpirationTime(issuedAt + ACCESS_TOKEN_SECONDS)
          .sign(key)
      )
    }).pipe(Effect.orDie)

  /**
   * The claims of a valid access token: our signature (by kid, among the published keys), `typ`
   * at+jwt, issuer, audience and expiry (by the service's clock). Undefined for anything else.
   */
  // The published public keys, remembered for a minute (a key of another instance's rotation, unknown
  // here, makes it look again at once).
  let cache: { readonly loadedAt: number; readonly keys: ReadonlyMap<string, Key> } | undefined
  const publicKey = (kid: string) =>
    Effect.gen(function*() {
      const at = yield* clock.currentTimeMillis
      if (cache !== undefined && at - cache.loadedAt < 60_000 && cache.keys.has(kid)) return cache.keys.get(kid)
      const keys = new Map<string, Key>()
      for (const row of yield* published) keys.set(row.kid, yield* importKey(row.publicJwk))
      cache = { loadedAt: at, keys }
      return keys.get(kid)
    })

  const verify = (token: string, options: { readonly issuer: string; readonly audience: string }) =>
    Effect.gen(function*() {
      let kid: string | undefined
      try {
        kid = decodeProtectedHeader(token).kid
      } catch {
        return undefined
      }
      if (kid === undefined) return undefined
      const key = yield* publicKey(kid)
      if (key === undefined) return undefined
      const at = yield* now
      return yield* Effect.promise(() =>
        jwtVerify(token, key, {
          issuer: options.issuer,
          audience: options.audience,
          typ: "at+jwt",
          algorithms: [ALGORITHM],
          currentDate: at,
          requiredClaims: ["exp", "iat", "jti", "sub"]
        }).then(
          ({ payload }) => isClaims(payload) ? payload : undefined,
          () => undefined
        )
      )
    }).pipe(Effect.orDie)

  const jwks = Effect.map(published, (rows) => ({ keys: rows.map((row) => row.publicJwk) })).pipe(Effect.orDie)

  /** Retires the current key and makes a new one. */
  const rotate = Effect.gen(function*() {
    yield* fast.rows(`UPDATE oauth_signing_keys SET retired_at = $1 WHERE retired_at IS NULL`, [yield* now])
    cache = undefined
    return yield* ensureCurrent
  }).pipe(Effect.orDie)

  return { sign, verify, jwks, rotate, ensureCurrent: Effect.orDie(ensureCurrent) } as const
})

/**
 * The keys that sign access tokens (Ed25519, EdDSA): created at first start and kept in the database,
 * so that every instance signs and verifies with the same keys. A rotation retires the current key and
 * makes a new one; a retired key is still published (JWKS) and still verifies until the tokens it
 * signed have expired.
 */
export class SigningKeys extends Context.Service<SigningKeys, Effect.Success<typeof makeSigningKeys>>()("@bizops/server/SigningKeys") {
  static readonly layer = Layer.effect(SigningKeys, makeSigningKeys)
}
