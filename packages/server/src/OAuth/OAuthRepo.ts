import { BusinessId, checkRedirectUri, isOAuthScope, OrganizationId, type Principal, type RateWindow } from "@bizops/domain"
import { Clock, Context, Effect, Layer, Result } from "effect"
import { SqlClient } from "effect/sql"
import { randomBytes, randomUUID } from "node:crypto"
import { CounterSql, FastSql } from "../Sql/Fast.js"
import { hashSecret, randomToken, sha256, verifySecret } from "./Secrets.js"

/** A code lives 60 s; a refresh token 30 days; a sign-in session 12 hours. */
export const CODE_SECONDS = 60
export const REFRESH_TOKEN_SECONDS = 30 * 24 * 3600
export const SESSION_SECONDS = 12 * 3600

/** Why an operator command was refused. */
export class AdminError extends Error {
  readonly _tag = "AdminError"
  constructor(readonly code: string, message: string) {
    super(message)
  }
}

export interface AppRow {
  readonly id: string
  readonly clientId: string
  readonly secretHash: string
  readonly name: string
  readonly description: string | null
  readonly homepageUrl: string | null
  readonly logoUrl: string | null
  readonly redirectUris: ReadonlyArray<string>
  readonly scopes: ReadonlyArray<string>
  readonly disabledAt: Date | null
}

export interface GrantRow {
  readonly id: string
  readonly appId: string
  readonly userId: string
  readonly organizationId: string
  readonly scopes: ReadonlyArray<string>
  readonly revokedAt: Date | null
}

interface CodeRow extends GrantRow {
  readonly grantId: string
  readonly redirectUri: string
  readonly codeChallenge: string
  readonly expiresAt: Date
  readonly usedAt: Date | null
  readonly appDisabledAt: Date | null
}

interface RefreshRow extends GrantRow {
  readonly grantId: string
  readonly expiresAt: Date
  readonly usedAt: Date | null
  readonly appDisabledAt: Date | null
}

/** The principal of a live grant, with its rate-limit window after counting this request. */
export interface CountedGrant {
  readonly principal: Principal
  readonly grantScopes: ReadonlyArray<string>
  readonly rateLimit: number
  readonly window: RateWindow
}

/** The rate limit of an OAuth grant (app, user, organization): the contract's 1000 an hour. */
export const GRANT_RATE_LIMIT = 1000

const isHttpUrl = (value: string) => {
  try {
    const url = new URL(value)
    return url.protocol === "https:" || url.protocol === "http:"
  } catch {
    return false
  }
}

/**
 * Is the grant live (not revoked, its app enabled)? Counts the request in the grant's rate-limit
 * window in the same statement ($1 grant id, $2 bucket, $3 now), like the API key statement does.
 */
const AUTHENTICATE_GRANT = `
    WITH g AS (
      SELECT g.id, g.organization_id, g.scopes, b.id AS business_id
      FROM oauth_grants g
      JOIN oauth_apps a ON a.id = g.app_id AND a.disabled_at IS NULL
      JOIN businesses b ON b.organization_id = g.organization_id AND b.is_default
      WHERE g.id = $1 AND g.revoked_at IS NULL
    ), c AS (
      INSERT INTO rate_limits AS r (bucket, organization_id, window_start, count)
      SELECT $2, g.organization_id, $3, 1 FROM g
      ON CONFLICT (bucket) DO UPDATE SET
        window_start = CASE WHEN r.window_start + interval '1 hour' <= $3 THEN EXCLUDED.window_start ELSE r.window_start END,
        count = CASE WHEN r.window_start + interval '1 hour' <= $3 THEN 1 ELSE r.count + 1 END
      RETURNING r.window_start, r.count
    )
    SELECT g.*, c.window_start, c.count FROM g CROSS JOIN c`

const makeOAuthRepo = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const fast = yield* FastSql
  const counter = yield* CounterSql
  // The clock this service was built with (the server's), whoever calls it, as in SigningKeys.
  const clock = yield* Clock.Clock
  const now = Effect.map(clock.currentTimeMillis, (ms) => new Date(ms))

  // ---- Operator commands -------------------------------------------------------------------

  const createUser = (input: { readonly email: string; readonly password: string; readonly organizationId: string }) =>
    Effect.gen(function*() {
      if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(input.email)) return yield* Effect.fail(new AdminError("invalid_email", "The email is not an email address"))
      if (input.password.length < 8) return yield* Effect.fail(new AdminError("weak_password", "The password must have at least 8 characters"))
      const [org] = yield* fast.rows(`SELECT 1 FROM organizations WHERE id = $1`, [input.organizationId])
      if (org === undefined) return yield* Effect.fail(new AdminError("not_found", "No such organization"))
      const [taken] = yield* fast.rows(`SELECT 1 FROM users WHERE lower(email) = lower($1)`, [input.email])
      if (taken !== undefined) return yield* Effect.fail(new AdminError("duplicate_record", "A user with this email exists"))
      const userId = randomUUID()
      const passwordHash = yield* Effect.promise(() => hashSecret(input.password))
      yield* sql.withTransaction(Effect.andThen(
        fast.rows(`INSERT INTO users (id, email, password_hash, created_at) VALUES ($1, $2, $3, $4)`, [userId, input.email, passwordHash, yield* now]),
        fast.rows(`INSERT INTO user_organizations (user_id, organization_id) VALUES ($1, $2)`, [userId, input.organizationId])
      ))
      return { userId }
    })

  const addUserToOrganization = (userId: string, organizationId: string) =>
    Effect.gen(function*() {
      const [user] = yield* fast.rows(`SELECT 1 FROM users WHERE id = $1`, [userId])
      if (user === undefined) return yield* Effect.fail(new AdminError("not_found", "No such user"))
      const [org] = yield* fast.rows(`SELECT 1 FROM organizations WHERE id = $1`, [organizationId])
      if (org === undefined) return yield* Effect.fail(new AdminError("not_found", "No such organization"))
      yield* fast.rows(`INSERT INTO user_organizations (user_id, organization_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [userId, organizationId])
      return { userId, organizationId }
    })

  const createApp = (input: {
    readonly name: string
    readonly redirectUris: ReadonlyArray<string>
    readonly scopes: ReadonlyArray<string>
    readonly description?: string | undefined
    readonly homepageUrl?: string | undefined
    readonly logoUrl?: string | undefined
  }) =>
    Effect.gen(function*() {
      if (input.name.trim().length === 0 || input.name.length > 200) return yield* Effect.fail(new AdminError("invalid_name", "The name must be 1 to 200 characters"))
      if (input.redirectUris.length === 0) return yield* Effect.fail(new AdminError("invalid_redirect_uri", "An app needs at least one redirect URI"))
      for (const uri of input.redirectUris) {
        const checked = checkRedirectUri(uri)
        if (Result.isFailure(checked)) return yield* Effect.fail(new AdminError("invalid_redirect_uri", `${uri}: ${checked.failure}`))
      }
      const unknown = input.scopes.filter((scope) => !isOAuthScope(scope))
      if (unknown.length > 0 || input.scopes.length === 0) {
        return yield* Effect.fail(new AdminError("invalid_scope", unknown.length > 0 ? `Unknown scopes: ${unknown.join(", ")}` : "An app needs at least one scope"))
      }
      for (const [field, value] of [["homepage URL", input.homepageUrl], ["logo URL", input.logoUrl]] as const) {
        if (value !== undefined && !isHttpUrl(value)) return yield* Effect.fail(new AdminError("invalid_url", `The ${field} must be an http(s) URL`))
      }
      const clientId = `boc_${randomBytes(16).toString("hex")}`
      const clientSecret = randomToken("bos_")
      yield* fast.rows(
        `INSERT INTO oauth_apps (id, client_id, secret_hash, name, description, homepage_url, logo_url, redirect_uris, scopes, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)`,
        [
          randomUUID(),
          clientId,
          yield* Effect.promise(() => hashSecret(clientSecret)),
          input.name,
          input.description ?? null,
          input.homepageUrl ?? null,
          input.logoUrl ?? null,
          [...new Set(input.redirectUris)],
          [...new Set(input.scopes)],
          yield* now
        ]
      )
      return { clientId, clientSecret }
    })

  const appByClientId = (clientId: string) =>
    Effect.map(fast.rows<AppRow>(`SELECT * FROM oauth_apps WHERE client_id = $1`, [clientId]), (rows) => rows[0])

  const existingApp = (clientId: string) =>
    Effect.flatMap(appByClientId(clientId), (app) => app === undefined ? Effect.fail(new AdminError("not_found", "No such app")) : Effect.succeed(app))

  /** A new secret; the old one stops working at once. Grants and their tokens stay. */
  const rotateSecret = (clientId: string) =>
    Effect.gen(function*() {
      yield* existingApp(clientId)
      const clientSecret = randomToken("bos_")
      const hash = yield* Effect.promise(() => hashSecret(clientSecret))
      yield* fast.rows(`UPDATE oauth_apps SET secret_hash = $2, updated_at = $3 WHERE client_id = $1`, [clientId, hash, yield* now])
      return { clientId, clientSecret }
    })

  /** Disabling revokes every grant of the app for good; enabling allows new authorizations only. */
  const setDisabled = (clientId: string, disabled: boolean) =>
    Effect.gen(function*() {
      const app = yield* existingApp(clientId)
      yield* sql.withTransaction(Effect.gen(function*() {
        yield* fast.rows(
          `UPDATE oauth_apps SET disabled_at = CASE WHEN $2 THEN coalesce(disabled_at, $3) END, updated_at = $3 WHERE id = $1`,
          [app.id, disabled, yield* now]
        )
        if (disabled) yield* revokeWhere(`app_id = $1`, [app.id], "app_disabled")
      }))
      return { clientId, disabled }
    })

  /** A user revoking the app: every grant of (app, user) ends, its refresh tokens are deleted. */
  const revokeForUser = (clientId: string, userId: string) =>
    Effect.gen(function*() {
      const app = yield* existingApp(clientId)
      const [user] = yield* fast.rows(`SELECT 1 FROM users WHERE id = $1`, [userId])
      if (user === undefined) return yield* Effect.fail(new AdminError("not_found", "No such user"))
      yield* sql.withTransaction(revokeWhere(`app_id = $1 AND user_id = $2`, [app.id, userId], "user_revoked"))
      return { clientId, userId, revoked: true as const }
    })

  /** Revokes grants and deletes their refresh tokens and unused codes. */
  const revokeWhere = (condition: string, values: ReadonlyArray<unknown>, reason: string) =>
    Effect.gen(function*() {
      const revoked = yield* fast.rows<{ readonly id: string }>(
        `UPDATE oauth_grants SET revoked_at = $${values.length + 2}, revoked_reason = $${values.length + 1} WHERE ${condition} AND revoked_at IS NULL RETURNING id`,
        [...values, reason, yield* now]
      )
      const ids = revoked.map((row) => row.id)
      if (ids.length > 0) {
        yield* fast.rows(`DELETE FROM oauth_refresh_tokens WHERE grant_id = ANY ($1::uuid[])`, [ids])
      }
    })

  const revokeGrant = (grantId: string, reason: "code_reused" | "refresh_token_reused" | "revoked_by_client") =>
    revokeWhere(`id = $1`, [grantId], reason)

  // ---- Sign-in -----------------------------------------------------------------------------

  const verifyClientSecret = (app: AppRow, secret: string) => Effect.promise(() => verifySecret(secret, app.secretHash))

  /** The user of an email and password, or undefined (the same work either way: a missing user is hashed too). */
  const signIn = (email: string, password: string) =>
    Effect.gen(function*() {
      const [user] = yield* fast.rows<{ readonly id: string; readonly email: string; readonly passwordHash: string }>(
        `SELECT id, email, password_hash FROM users WHERE lower(email) = lower($1)`,
        [email]
      )
      const ok = yield* Effect.promise(() => verifySecret(password, user?.passwordHash ?? DUMMY_HASH))
      return ok && user !== undefined ? { id: user.id, email: user.email } : undefined
    })

  const organizationsOf = (userId: string) =>
    fast.rows<{ readonly id: string; readonly name: string }>(
      `SELECT o.id, o.name FROM user_organizations u JOIN organizations o ON o.id = u.organization_id
       WHERE u.user_id = $1 ORDER BY o.name, o.id`,
      [userId]
    )

  const createSession = (userId: string, now: Date) =>
    Effect.gen(function*() {
      const token = randomToken()
      const csrf = randomToken()
      yield* fast.rows(
        `INSERT INTO auth_sessions (id_hash, user_id, csrf, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)`,
        [sha256(token), userId, csrf, now, new Date(now.getTime() + SESSION_SECONDS * 1000)]
      )
      yield* fast.rows(`DELETE FROM auth_sessions WHERE expires_at < $1`, [now])
      return token
    })

  const sessionOf = (token: string, now: Date) =>
    Effect.map(
      fast.rows<{ readonly userId: string; readonly email: string; readonly csrf: string }>(
        `SELECT s.user_id, u.email, s.csrf FROM auth_sessions s JOIN users u ON u.id = s.user_id
         WHERE s.id_hash = $1 AND s.expires_at > $2`,
        [sha256(token), now]
      ),
      (rows) => rows[0]
    )

  /** Counts one event in a window of `seconds` per bucket; gives the count and when the window ends. */
  const countInWindow = (bucket: string, seconds: number, now: Date) =>
    Effect.map(
      counter.rows<{ readonly windowStart: Date; readonly count: number }>(
        `INSERT INTO auth_windows AS w (bucket, window_start, count) VALUES ($1, $2, 1)
         ON CONFLICT (bucket) DO UPDATE SET
           window_start = CASE WHEN w.window_start + make_interval(secs => $3) <= $2 THEN EXCLUDED.window_start ELSE w.window_start END,
           count = CASE WHEN w.window_start + make_interval(secs => $3) <= $2 THEN 1 ELSE w.count + 1 END
         RETURNING window_start, count`,
        [bucket, now, seconds]
      ),
      ([row]) => ({ count: row.count, resetsAt: row.windowStart.getTime() + seconds * 1000 })
    )

  /** The count of a bucket's current window, without counting. */
  const windowCount = (bucket: string, seconds: number, now: Date) =>
    Effect.map(
      counter.rows<{ readonly windowStart: Date; readonly count: number }>(
        `SELECT window_start, count FROM auth_windows WHERE bucket = $1 AND window_start + make_interval(secs => $3) > $2`,
        [bucket, now, seconds]
      ),
      (rows) => rows[0] === undefined ? { count: 0, resetsAt: 0 } : { count: rows[0].count, resetsAt: rows[0].windowStart.getTime() + seconds * 1000 }
    )

  // ---- Grants, codes and tokens --------------------------------------------------------------

  /** A consent: a new grant and its code (returned in clear once; only its hash is kept). */
  const createGrantAndCode = (input: {
    readonly appId: string
    readonly userId: string
    readonly organizationId: string
    readonly scopes: ReadonlyArray<string>
    readonly redirectUri: string
    readonly codeChallenge: string
    readonly now: Date
  }) =>
    sql.withTransaction(Effect.gen(function*() {
      const grantId = randomUUID()
      const code = randomToken()
      yield* fast.rows(
        `INSERT INTO oauth_grants (id, app_id, user_id, organization_id, scopes, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
        [grantId, input.appId, input.userId, input.organizationId, input.scopes, input.now]
      )
      yield* fast.rows(
        `INSERT INTO oauth_codes (code_hash, grant_id, redirect_uri, code_challenge, expires_at, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
        [sha256(code), grantId, input.redirectUri, input.codeChallenge, new Date(input.now.getTime() + CODE_SECONDS * 1000), input.now]
      )
      return code
    }))

  /**
   * A code with its grant, marked used by this call (`firstUse`) or already used before. Only the
   * client the code was issued to can spend it (another client's attempt changes nothing).
   */
  const takeCode = (code: string, appId: string, now: Date) =>
    Effect.gen(function*() {
      const [row] = yield* fast.rows<CodeRow & { readonly firstUse: boolean }>(
        `WITH used AS (
           UPDATE oauth_codes c SET used_at = $2 FROM oauth_grants g
           WHERE c.code_hash = $1 AND c.used_at IS NULL AND g.id = c.grant_id AND g.app_id = $3 RETURNING c.code_hash
         )
         SELECT c.grant_id, c.redirect_uri, c.code_challenge, c.expires_at, c.used_at, g.id, g.app_id, g.user_id,
           g.organization_id, g.scopes, g.revoked_at, a.disabled_at AS app_disabled_at,
           EXISTS (SELECT 1 FROM used) AS first_use
         FROM oauth_codes c JOIN oauth_grants g ON g.id = c.grant_id JOIN oauth_apps a ON a.id = g.app_id
         WHERE c.code_hash = $1`,
        [sha256(code), now, appId]
      )
      return row
    })

  const issueRefreshToken = (grantId: string, now: Date) =>
    Effect.gen(function*() {
      const token = randomToken("bor_")
      yield* fast.rows(
        `INSERT INTO oauth_refresh_tokens (token_hash, grant_id, expires_at, created_at) VALUES ($1, $2, $3, $4)`,
        [sha256(token), grantId, new Date(now.getTime() + REFRESH_TOKEN_SECONDS * 1000), now]
      )
      return token
    })

  /**
   * A refresh token with its grant, marked used by this call (`firstUse`) or already used before. Only
   * the client it was issued to can spend it (another client's attempt changes nothing).
   */
  const takeRefreshToken = (token: string, appId: string, now: Date) =>
    Effect.gen(function*() {
      const [row] = yield* fast.rows<RefreshRow & { readonly firstUse: boolean }>(
        `WITH used AS (
           UPDATE oauth_refresh_tokens t SET used_at = $2 FROM oauth_grants g
           WHERE t.token_hash = $1 AND t.used_at IS NULL AND g.id = t.grant_id AND g.app_id = $3 RETURNING t.token_hash
         )
         SELECT t.grant_id, t.expires_at, t.used_at, g.id, g.app_id, g.user_id, g.organization_id, g.scopes,
           g.revoked_at, a.disabled_at AS app_disabled_at, EXISTS (SELECT 1 FROM used) AS first_use
         FROM oauth_refresh_tokens t JOIN oauth_grants g ON g.id = t.grant_id JOIN oauth_apps a ON a.id = g.app_id
         WHERE t.token_hash = $1`,
        [sha256(token), now, appId]
      )
      return row
    })

  /** The grant of a refresh token (for revocation), whoever asks. */
  const grantOfRefreshToken = (token: string) =>
    Effect.map(
      fast.rows<GrantRow>(
        `SELECT g.* FROM oauth_refresh_tokens t JOIN oauth_grants g ON g.id = t.grant_id WHERE t.token_hash = $1`,
        [sha256(token)]
      ),
      (rows) => rows[0]
    )

  const grantById = (grantId: string) =>
    Effect.map(fast.rows<GrantRow>(`SELECT * FROM oauth_grants WHERE id = $1`, [grantId]), (rows) => rows[0])

  /** A live grant's principal, counted in its rate-limit window: the /api/v1 check of an access token. */
  const authenticateGrant = (grantId: string, bucket: string, now: number) =>
    Effect.map(
      counter.rows<{
        readonly id: string
        readonly organizationId: string
        readonly scopes: ReadonlyArray<string>
        readonly businessId: string
        readonly windowStart: Date
        readonly count: number
      }>(AUTHENTICATE_GRANT, [grantId, bucket, new Date(now)]),
      (rows): CountedGrant | undefined => {
        const row = rows[0]
        if (row === undefined) return undefined
        return {
          principal: {
            organizationId: OrganizationId.make(row.organizationId, { disableChecks: true }),
            businessId: BusinessId.make(row.businessId, { disableChecks: true }),
            scopes: new Set(),
            credentialId: `grant:${row.id}`,
            kind: "oauth"
          },
          grantScopes: row.scopes,
          rateLimit: GRANT_RATE_LIMIT,
          window: { start: row.windowStart.getTime(), count: row.count }
        }
      }
    )

  return {
    createUser,
    addUserToOrganization,
    createApp,
    rotateSecret,
    setDisabled,
    revokeForUser,
    revokeGrant,
    appByClientId,
    verifyClientSecret,
    signIn,
    organizationsOf,
    createSession,
    sessionOf,
    countInWindow,
    windowCount,
    createGrantAndCode,
    takeCode,
    issueRefreshToken,
    takeRefreshToken,
    grantOfRefreshToken,
    grantById,
    authenticateGrant
  } as const
})

/** Users, apps, grants, codes, refresh tokens, sign-in sessions and attempt windows. */
export class OAuthRepo extends Context.Service<OAuthRepo, Effect.Success<typeof makeOAuthRepo>>()("@bizops/server/OAuthRepo") {
  static readonly layer = Layer.effect(OAuthRepo, makeOAuthRepo)
}

/** A valid hash of nothing anyone knows, so that an unknown email costs the same as a wrong password. */
const DUMMY_HASH = "scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
