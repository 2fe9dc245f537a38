import { ALL_SCOPES } from "@bizops/domain"
import { AccessRepo, OAuthRepo, SigningKeys, type AppConfigShape, databaseLayer, FastSql, migrate, serverLayer, withConfig } from "@bizops/server"
import { Clock, Context, Effect, Layer, Redacted } from "effect"
import { HttpServer } from "effect/http"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import pg from "pg"
import { inject } from "vitest"

export interface Organization {
  readonly organizationId: string
  readonly businessId: string
  readonly apiKey: string
  readonly apiKeyId: string
}

export interface TestServerShape {
  /** `http://127.0.0.1:PORT` of the real server under test. */
  readonly baseUrl: string
  /** The fresh database of this test file. */
  readonly databaseUrl: string
  /** A new organization with an API key of the given scopes (all scopes by default). */
  readonly organization: (scopes?: ReadonlyArray<string>, options?: { readonly rateLimit?: number }) => Effect.Effect<Organization>
  /** Revokes an API key. */
  readonly revokeKey: (id: string) => Effect.Effect<void>
  /** The operator's OAuth commands (users, apps, grants), as `npm run admin` runs them, on this server's database. */
  readonly oauth: OAuthRepo["Service"]
  /** The access-token signing keys of this server (rotate them in a test). */
  readonly signingKeys: SigningKeys["Service"]
  /** Runs SQL (or anything needing the SQL client) on this file's database, as a fixture would. */
  readonly withSql: <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient | FastSql>) => Effect.Effect<A, E>
}

export class TestServer extends Context.Service<TestServer, TestServerShape>()("@bizops/testkit/TestServer") {}

const withClient = <A>(url: string, f: (client: pg.Client) => Promise<A>) =>
  Effect.promise(async () => {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      return await f(client)
    } finally {
      await client.end()
    }
  })

/** A database of its own for this test file, dropped when the file is done. */
const freshDatabase = Effect.acquireRelease(
  Effect.gen(function*() {
    const adminUrl = inject("databaseAdminUrl")
    const name = `bizops_test_${randomBytes(6).toString("hex")}`
    yield* withClient(adminUrl, (client) => client.query(`CREATE DATABASE ${name}`))
    const url = new URL(adminUrl)
    url.pathname = `/${name}`
    return { adminUrl, name, url: url.toString() }
  }),
  ({ adminUrl, name }) => withClient(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).pipe(Effect.ignore)
)

/**
 * The real server, over real HTTP on an ephemeral loopback port, against a fresh database that the
 * migrations set up, with fixtures to make organizations and keys.
 */
export const makeTestServer = (options?: {
  /** The clock the server reads (for example a ShiftedClock that a test moves forward). */
  readonly clock?: Clock.Clock
  /** Settings over the environment's (for example webhooksAllowInsecure, for a receiver on loopback). */
  readonly config?: Partial<AppConfigShape>
}) =>
  Layer.unwrap(Effect.gen(function*() {
    const database = yield* freshDatabase
    const sql = databaseLayer(Redacted.make(database.url), { maxConnections: 10 })
    const migrated = Layer.effectDiscard(migrate)
    const info = Layer.effect(
      TestServer,
      Effect.gen(function*() {
        const server = yield* HttpServer.HttpServer
        const access = yield* AccessRepo
        const oauth = yield* OAuthRepo
        const signingKeys = yield* SigningKeys
        const sqlClient = yield* SqlClient.SqlClient
        const fastSql = yield* FastSql
        const address = server.address
        const port = address._tag === "UnixPathAddress" ? 0 : address.port
        return {
          baseUrl: `http://127.0.0.1:${port}`,
          databaseUrl: database.url,
          organization: (scopes = ALL_SCOPES, options) =>
            Effect.gen(function*() {
              const org = yield* access.createOrganization(`Test ${randomBytes(3).toString("hex")}`)
              const key = yield* access.createKey({ organizationId: org.organizationId, scopes, rateLimit: options?.rateLimit })
              return { ...org, apiKey: key.apiKey, apiKeyId: key.id }
            }).pipe(Effect.orDie),
          revokeKey: (id: string) => Effect.asVoid(Effect.orDie(access.revokeKey(id))),
          oauth,
          signingKeys,
          withSql: (effect) => effect.pipe(Effect.provideService(SqlClient.SqlClient, sqlClient), Effect.provideService(FastSql, fastSql))
        }
      })
    )
    return info.pipe(
      Layer.provide(serverLayer({ port: 0, host: "127.0.0.1" })),
      Layer.provide(Layer.mergeAll(AccessRepo.layer, OAuthRepo.layer, SigningKeys.layer)),
      Layer.provide(migrated),
      // The issuer takes the port the server gets (Issuer.ts); the environment's BASE_URL is not read
      // (vitest sets BASE_URL=/ for Vite).
      Layer.provide(withConfig({ baseUrl: "http://127.0.0.1:0", ...options?.config })),
      Layer.provide(sql),
      // @effect/vitest's `layer` builds this over its TestClock, which stands at 1970 and never moves by
      // itself; every timestamp the server writes comes from its Clock, so it reads the real clock unless a
      // test gives one (a ShiftedClock that the test moves forward).
      Layer.provide(Layer.succeed(Clock.Clock, options?.clock ?? Clock.Clock.defaultValue()))
    )
  }))

export const TestServerLive = makeTestServer()
