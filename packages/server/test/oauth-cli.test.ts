/**
 * The operator's OAuth commands over the real command line (`npm run admin -- …`, the contract's "admin
 * commands for users and apps"), on the test file's database: users, apps, secrets, grants and the
 * signing key. Each run starts a process (a few seconds), so the steps are grouped.
 */
import { expect, layer } from "@effect/vitest"
import { runScript, TestServer, TestServerLive } from "@bizops/testkit"
import { SqlClient } from "effect/sql"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"

const REAL_CLOCK = { excludeTestServices: true } as const

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** Runs `npm run admin -- ARGS` as an operator would, on the test file's database. */
const admin = (databaseUrl: string, ...args: Array<string>) => runScript("scripts/admin.ts", args, { DATABASE_URL: databaseUrl })

const lastJson = (text: string) => JSON.parse(text.trim().split("\n").at(-1) ?? "null")

/** A run that succeeded: exit 0, nothing on stderr, one JSON object on stdout. */
const ok = (databaseUrl: string, ...args: Array<string>) =>
  Effect.map(admin(databaseUrl, ...args), (run) => {
    expect(run.stderr, args.join(" ")).toBe("")
    expect(run.code, args.join(" ")).toBe(0)
    expect(run.stdout.trim().split("\n"), args.join(" ")).toHaveLength(1)
    return JSON.parse(run.stdout)
  })

/** A run that failed with this error code: exit non-zero, nothing on stdout, `{"error":{code,message}}` on stderr. */
const fails = (databaseUrl: string, code: string, ...args: Array<string>) =>
  Effect.map(admin(databaseUrl, ...args), (run) => {
    expect(run.code, args.join(" ")).not.toBe(0)
    expect(run.stdout, args.join(" ")).toBe("")
    const error = lastJson(run.stderr).error
    expect(error, args.join(" ")).toEqual({ code, message: expect.any(String) })
    expect(error.message.length).toBeGreaterThan(0)
    return error as { code: string; message: string }
  })

const email = (name: string) => `${name}.${randomBytes(3).toString("hex")}@example.com`

layer(TestServerLive, REAL_CLOCK)("admin commands for OAuth users and apps", (it) => {
  it.effect("user create and user add-org; duplicate email, bad email and short password are refused", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const db = server.databaseUrl
      const home = yield* server.organization()
      const other = yield* server.organization()
      const address = email("ada")
      const password = `pw-${randomBytes(9).toString("base64url")}`

      // Independent runs go side by side: each is a process of its own.
      const [created, badEmail, shortPassword] = yield* Effect.all([
        ok(db, "user", "create", "--org", home.organizationId, "--email", address, "--password", password),
        fails(db, "invalid_email", "user", "create", "--org", home.organizationId, "--email", "not-an-email", "--password", "long enough password"),
        fails(db, "weak_password", "user", "create", "--org", home.organizationId, "--email", email("bo"), "--password", "short")
      ], { concurrency: "unbounded" })
      expect(created).toEqual({ userId: expect.stringMatching(UUID) })
      const { userId } = created
      expect(badEmail.message).not.toContain("long enough password")
      expect(shortPassword.message).not.toContain("short")

      // The same email again (in another case, for another organization) is a duplicate.
      const [duplicate, added] = yield* Effect.all([
        fails(db, "duplicate_record", "user", "create", "--org", other.organizationId, "--email", address.toUpperCase(), "--password", "another password"),
        ok(db, "user", "add-org", "--user", userId, "--org", other.organizationId)
      ], { concurrency: "unbounded" })
      expect(duplicate.message).not.toContain("another password")
      expect(added).toEqual({ userId, organizationId: other.organizationId })

      // One user, in both organizations; the password only as a scrypt hash.
      const rows = yield* server.withSql(Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql<{ id: string; email: string; passwordHash: string }>`SELECT id, email, password_hash FROM users WHERE lower(email) = lower(${address})`
      )).pipe(Effect.orDie)
      expect(rows).toHaveLength(1)
      expect(rows[0].id).toBe(userId)
      expect(rows[0].passwordHash).toMatch(/^scrypt\$\d+\$\d+\$\d+\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+$/)
      expect(rows[0].passwordHash).not.toContain(password)
      const memberships = yield* server.withSql(Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql<{ organizationId: string }>`SELECT organization_id FROM user_organizations WHERE user_id = ${userId} ORDER BY organization_id`
      )).pipe(Effect.orDie)
      expect(memberships.map((m) => m.organizationId)).toEqual([home.organizationId, other.organizationId].sort())
      // The password works: the user's login is the one the server checks.
      expect(yield* Effect.orDie(server.oauth.signIn(address, password))).toMatchObject({ id: userId })
    }), { timeout: 60_000 })

  it.effect("app create, rotate-secret, disable, enable and revoke; signing-key rotate; secrets stored as scrypt hashes", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const db = server.databaseUrl
      const org = yield* server.organization()
      const { userId } = yield* Effect.orDie(server.oauth.createUser({ email: email("dee"), password: "long enough password", organizationId: org.organizationId }))

      const [app, badRedirect, unknownScope] = yield* Effect.all([
        ok(
          db,
          "app", "create",
          "--name", "Ledger Sync",
          "--redirect-uri", "https://ledger.example.com/callback",
          "--redirect-uri", "http://127.0.0.1/callback",
          "--redirect-uri", "http://localhost:8080/oauth",
          "--scopes", "read:clients write:clients offline_access",
          "--description", "Keeps your books in step",
          "--homepage-url", "https://ledger.example.com"
        ),
        fails(db, "invalid_redirect_uri", "app", "create", "--name", "Plain http", "--redirect-uri", "http://example.com/cb", "--scopes", "read:clients"),
        fails(db, "invalid_scope", "app", "create", "--name", "Greedy", "--redirect-uri", "https://greedy.example.com/cb", "--scopes", "read:clients admin:everything")
      ], { concurrency: "unbounded" })
      expect(app).toEqual({ clientId: expect.any(String), clientSecret: expect.any(String) })
      const { clientId, clientSecret } = app
      expect(clientSecret.length).toBeGreaterThanOrEqual(32)
      expect(clientSecret).not.toContain(clientId)
      expect(badRedirect.message).toContain("http://example.com/cb")
      expect(unknownScope.message).toContain("admin:everything")

      const appRow = () =>
        server.withSql(Effect.flatMap(SqlClient.SqlClient, (sql) =>
          sql<{ secretHash: string; redirectUris: Array<string>; scopes: Array<string>; disabledAt: Date | null }>`
            SELECT secret_hash, redirect_uris, scopes, disabled_at FROM oauth_apps WHERE client_id = ${clientId}`
        )).pipe(Effect.orDie, Effect.map((rows) => {
          expect(rows).toHaveLength(1)
          return rows[0]
        }))
      const before = yield* appRow()
      expect(before.redirectUris).toEqual(["https://ledger.example.com/callback", "http://127.0.0.1/callback", "http://localhost:8080/oauth"])
      expect(before.scopes).toEqual(["read:clients", "write:clients", "offline_access"])
      expect(before.disabledAt).toBeNull()
      expect(before.secretHash).toMatch(/^scrypt\$/)
      expect(before.secretHash).not.toContain(clientSecret)
      // The apps refused above were not stored.
      const count = yield* server.withSql(Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM oauth_apps`)).pipe(Effect.orDie)
      expect(count[0].n).toBe(1)

      // A grant of the user (as an approved consent makes it), so that revoke and disable have something to end.
      const appId = (yield* Effect.orDie(server.oauth.appByClientId(clientId)))?.id ?? ""
      const authorize = Effect.orDie(server.oauth.createGrantAndCode({
        appId,
        userId,
        organizationId: org.organizationId,
        scopes: ["read:clients"],
        redirectUri: "https://ledger.example.com/callback",
        codeChallenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
        now: new Date()
      }))
      yield* authorize
      const liveGrants = () =>
        server.withSql(Effect.flatMap(SqlClient.SqlClient, (sql) =>
          sql<{ n: number }>`SELECT count(*)::int AS n FROM oauth_grants g JOIN oauth_apps a ON a.id = g.app_id
            WHERE a.client_id = ${clientId} AND g.user_id = ${userId} AND g.revoked_at IS NULL`
        )).pipe(Effect.orDie, Effect.map((rows) => rows[0].n))
      expect(yield* liveGrants()).toBe(1)

      const [rotated, revoked, keyRotated] = yield* Effect.all([
        ok(db, "app", "rotate-secret", "--client-id", clientId),
        ok(db, "app", "revoke", "--client-id", clientId, "--user", userId),
        ok(db, "signing-key", "rotate")
      ], { concurrency: "unbounded" })
      expect(rotated).toEqual({ clientId, clientSecret: expect.any(String) })
      expect(rotated.clientSecret).not.toBe(clientSecret)
      expect(rotated.clientSecret.length).toBeGreaterThanOrEqual(32)
      expect(revoked).toEqual({ clientId, userId, revoked: true })
      expect(yield* liveGrants()).toBe(0)
      expect(keyRotated).toEqual({ kid: expect.any(String), rotated: true })

      // The new secret is stored only as a hash, a new one; the old secret no longer matches.
      const afterRotation = yield* appRow()
      expect(afterRotation.secretHash).toMatch(/^scrypt\$/)
      expect(afterRotation.secretHash).not.toBe(before.secretHash)
      expect(afterRotation.secretHash).not.toContain(rotated.clientSecret)
      const stored = yield* Effect.orDie(server.oauth.appByClientId(clientId))
      expect(stored).toBeDefined()
      if (stored !== undefined) {
        expect(yield* server.oauth.verifyClientSecret(stored, rotated.clientSecret)).toBe(true)
        expect(yield* server.oauth.verifyClientSecret(stored, clientSecret)).toBe(false)
      }

      // The signing key the server publishes now includes the new kid (the old one stays published).
      const jwks = yield* Effect.promise(() => fetch(`${server.baseUrl}/api/auth/jwks`).then((r) => r.json() as Promise<{ keys: Array<{ kid: string }> }>))
      expect(jwks.keys.map((k) => k.kid)).toContain(keyRotated.kid)
      expect(jwks.keys.length).toBeGreaterThanOrEqual(2)

      // Disabling ends the app's grants for good; enabling allows new authorizations, it revives none.
      yield* authorize
      expect(yield* liveGrants()).toBe(1)
      const disabled = yield* ok(db, "app", "disable", "--client-id", clientId)
      expect(disabled).toEqual({ clientId, disabled: true })
      expect((yield* appRow()).disabledAt).not.toBeNull()
      expect(yield* liveGrants()).toBe(0)
      const enabled = yield* ok(db, "app", "enable", "--client-id", clientId)
      expect(enabled).toEqual({ clientId, disabled: false })
      expect((yield* appRow()).disabledAt).toBeNull()
      expect(yield* liveGrants()).toBe(0)
    }), { timeout: 60_000 })
})
