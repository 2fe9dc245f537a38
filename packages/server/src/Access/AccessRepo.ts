import { SqlClient } from "@effect/sql"
import { BusinessId, isKnownScope, OrganizationId, type Principal } from "@bizops/domain"
import { Effect, Option } from "effect"
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
}

/** Organizations, their default business, and their API keys. */
export class AccessRepo extends Effect.Service<AccessRepo>()("@bizops/server/AccessRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const createOrganization = (name: string) =>
      sql.withTransaction(
        Effect.gen(function*() {
          const organizationId = randomUUID()
          const businessId = randomUUID()
          yield* sql`INSERT INTO organizations ${sql.insert({ id: organizationId, name })}`
          yield* sql`INSERT INTO businesses ${sql.insert({ id: businessId, organizationId, name, isDefault: true })}`
          return { organizationId, businessId }
        })
      )

    const organizationExists = (organizationId: string) =>
      Effect.map(
        sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM organizations WHERE id = ${organizationId}`,
        (rows) => (rows[0]?.n ?? 0) > 0
      )

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
            rateLimit: input.rateLimit ?? 1000
          })
        }`
        return { id, apiKey, scopes: Array.from(new Set(input.scopes)) }
      })

    const revokeKey = (id: string) =>
      Effect.map(
        sql<{ readonly id: string }>`UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = ${id} RETURNING id`,
        (rows) => rows.length > 0
      )

    /** The principal of a valid, unrevoked key; none for anything else. */
    const authenticateKey = (key: string): Effect.Effect<Option.Option<Principal>> => {
      if (!looksLikeApiKey(key)) return Effect.succeed(Option.none())
      const hash = hashApiKey(key)
      return sql<KeyRow>`
        SELECT k.id, k.organization_id, b.id AS business_id, k.scopes, k.key_hash
        FROM api_keys k
        JOIN businesses b ON b.organization_id = k.organization_id AND b.is_default
        WHERE k.key_hash = ${hash} AND k.revoked_at IS NULL`.pipe(
        Effect.map((rows) => {
          const row = rows[0]
          if (row === undefined || !sameHash(row.keyHash, hash)) return Option.none()
          return Option.some<Principal>({
            organizationId: OrganizationId.make(row.organizationId),
            businessId: BusinessId.make(row.businessId),
            scopes: new Set(row.scopes),
            credentialId: row.id,
            kind: "api_key"
          })
        }),
        Effect.orDie
      )
    }

    return { createOrganization, organizationExists, countOrganizations, createKey, revokeKey, authenticateKey } as const
  })
}) {}
