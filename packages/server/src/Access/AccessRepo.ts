import {
  BusinessId,
  isKnownScope,
  OrganizationId,
  OrganizationSettings,
  type OrganizationSettingsUpdate,
  type Principal,
  type RateWindow
} from "@bizops/domain"
import { Clock, Context, Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { CounterSql } from "../Sql/Fast.js"
import { definedOnly } from "../Sql/Lists.js"
import { randomUUID } from "node:crypto"
import { displayPrefix, generateApiKey, hashApiKey, looksLikeApiKey, sameHash } from "./ApiKeys.js"

export class UnknownScope extends Error {
  readonly _tag = "UnknownScope"
}

interface KeyRow {
  readonly id: string
  readonly organizationId: string
  readonly businessId: string
  readonly scopes: ReadonlyArray<string>
  readonly keyHash: Uint8Array
  readonly rateLimit: number
  readonly windowStart: Date
  readonly count: number
}

/**
 * Looks up an unrevoked key by its hash and counts the request in the key's rate-limit window, which
 * starts anew when the previous one ended an hour ago ($1 key hash, $2 now). `countRequest` in
 * packages/domain/src/Common/RateLimit.ts is the same rule, property-tested.
 */
const AUTHENTICATE_AND_COUNT = `
    WITH k AS (
      SELECT k.id, k.organization_id, k.scopes, k.rate_limit, k.key_hash, b.id AS business_id
      FROM api_keys k
      JOIN businesses b ON b.organization_id = k.organization_id AND b.is_default
      WHERE k.key_hash = $1 AND k.revoked_at IS NULL
    ), c AS (
      INSERT INTO rate_limits AS r (bucket, organization_id, window_start, count)
      SELECT 'key:' || k.id, k.organization_id, $2, 1 FROM k
      ON CONFLICT (bucket) DO UPDATE SET
        window_start = CASE WHEN r.window_start + interval '1 hour' <= $2 THEN EXCLUDED.window_start ELSE r.window_start END,
        count = CASE WHEN r.window_start + interval '1 hour' <= $2 THEN 1 ELSE r.count + 1 END
      RETURNING r.window_start, r.count
    )
    SELECT k.*, c.window_start, c.count FROM k CROSS JOIN c`

/** A valid key's principal, with its rate-limit window after counting this request. */
export interface CountedPrincipal {
  readonly principal: Principal
  readonly rateLimit: number
  readonly window: RateWindow
}

const makeAccessRepo = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const counter = yield* CounterSql
  // The clock this service was built with (the server's), whoever calls it, as in SigningKeys.
  const clock = yield* Clock.Clock
  const now = Effect.map(clock.currentTimeMillis, (ms) => new Date(ms))

  const createOrganization = (name: string) =>
    sql.withTransaction(
      Effect.gen(function*() {
        const organizationId = randomUUID()
        const businessId = randomUUID()
        const createdAt = yield* now
        yield* sql`INSERT INTO organizations ${sql.insert({ id: organizationId, name, createdAt })}`
        yield* sql`INSERT INTO businesses ${sql.insert({ id: businessId, organizationId, name, isDefault: true, createdAt })}`
        return { organizationId, businessId }
      })
    )

  const organizationExists = (organizationId: string) =>
    Effect.map(
      sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM organizations WHERE id = ${organizationId}`,
      (rows) => (rows[0]?.n ?? 0) > 0
    )

  /** The organization's settings, or undefined when there is no such organization. */
  const organizationSettings = (organizationId: string) =>
    Effect.map(
      sql<{ readonly currency: string; readonly defaultTaxRate: number; readonly ownerEmail: string | null }>`
        SELECT currency, default_tax_rate::float8 AS default_tax_rate, owner_email FROM organizations WHERE id = ${organizationId}`,
      ([row]) => row === undefined ? undefined : new OrganizationSettings({ organizationId, ...row }, { disableChecks: true })
    )

  /** Changes the settings named (the others stay); the settings after, or undefined when there is no such organization. */
  const updateOrganization = (organizationId: string, update: OrganizationSettingsUpdate) =>
    Effect.gen(function*() {
      const columns = definedOnly({ currency: update.currency, defaultTaxRate: update.defaultTaxRate, ownerEmail: update.ownerEmail })
      if (Object.keys(columns).length > 0) {
        yield* sql`UPDATE organizations SET ${sql.update({ ...columns, updatedAt: yield* now })} WHERE id = ${organizationId}`
      }
      return yield* organizationSettings(organizationId)
    })

  const countOrganizations = Effect.map(
    sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM organizations`,
    (rows) => rows[0]?.n ?? 0
  )

  const createKey = (input: {
    readonly organizationId: string
    readonly scopes: ReadonlyArray<string>
    readonly name?: string | undefined
    readonly rateLimit?: number | undefined
  }) =>
    Effect.gen(function*() {
      const unknown = input.scopes.filter((s) => !isKnownScope(s))
      if (unknown.length > 0) return yield* Effect.fail(new UnknownScope(`Unknown scopes: ${unknown.join(", ")}`))
      const id = randomUUID()
      const apiKey = generateApiKey()
      yield* sql`INSERT INTO api_keys ${
        sql.insert({
          id,
          organizationId: input.organizationId,
          name: input.name ?? null,
          keyHash: hashApiKey(apiKey),
          keyPrefix: displayPrefix(apiKey),
          scopes: Array.from(new Set(input.scopes)),
          rateLimit: input.rateLimit ?? 1000,
          createdAt: yield* now
        })
      }`
      return { id, apiKey, scopes: Array.from(new Set(input.scopes)) }
    })

  const revokeKey = (id: string) =>
    Effect.flatMap(now, (at) =>
      Effect.map(
        sql<{ readonly id: string }>`UPDATE api_keys SET revoked_at = coalesce(revoked_at, ${at}) WHERE id = ${id} RETURNING id`,
        (rows) => rows.length > 0
      ))

  /**
   * The principal of a valid, unrevoked key, and its request counted, in one round trip: the key
   * lookup and the rate-limit upsert are one prepared statement, on the counter pool. Anything that
   * is not a valid key is none (and counts nothing).
   */
  const authenticateKey = (key: string, now: number): Effect.Effect<Option.Option<CountedPrincipal>> => {
    if (!looksLikeApiKey(key)) return Effect.succeed(Option.none())
    const hash = hashApiKey(key)
    return counter.rows<KeyRow>(AUTHENTICATE_AND_COUNT, [hash, new Date(now)]).pipe(
      Effect.map((rows) => {
        const row = rows[0]
        if (row === undefined || !sameHash(row.keyHash, hash)) return Option.none()
        return Option.some<CountedPrincipal>({
          principal: {
            organizationId: OrganizationId.make(row.organizationId, { disableChecks: true }),
            businessId: BusinessId.make(row.businessId, { disableChecks: true }),
            scopes: new Set(row.scopes),
            credentialId: `key:${row.id}`,
            kind: "api_key"
          },
          rateLimit: row.rateLimit,
          window: { start: row.windowStart.getTime(), count: row.count }
        })
      }),
      Effect.orDie
    )
  }

  return { createOrganization, organizationExists, organizationSettings, updateOrganization, countOrganizations, createKey, revokeKey, authenticateKey } as const
})

/** Organizations, their default business, and their API keys. */
export class AccessRepo extends Context.Service<AccessRepo, Effect.Success<typeof makeAccessRepo>>()("@bizops/server/AccessRepo") {
  static readonly layer = Layer.effect(AccessRepo, makeAccessRepo)
}
