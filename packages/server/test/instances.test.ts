import { expect, layer } from "@effect/vitest"
import { SqlClient } from "effect/sql"
import { serverProcess, TestServer, TestServerLive } from "@bizops/testkit"
import { Effect } from "effect"

interface Answer {
  readonly status: number
  readonly replayed: boolean
}

const send = (url: string, init: RequestInit) =>
  Effect.promise(async (): Promise<Answer> => {
    const response = await fetch(url, init)
    await response.arrayBuffer()
    return { status: response.status, replayed: response.headers.get("idempotent-replayed") === "true" }
  })

layer(TestServerLive)("two server processes on one PostgreSQL", (it) => {
  it.effect("they share idempotency records and rate-limit windows", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* TestServer
      const [a, b] = yield* Effect.all([
        serverProcess({ DATABASE_URL: server.databaseUrl }),
        serverProcess({ DATABASE_URL: server.databaseUrl })
      ], { concurrency: 2 })
      expect(a.url).not.toBe(b.url)

      // One Idempotency-Key sent to both alternately creates one record.
      const org = yield* server.organization()
      const create = (url: string) =>
        send(`${url}/api/v1/clients`, {
          method: "POST",
          headers: { "x-api-key": org.apiKey, "content-type": "application/json", "idempotency-key": "across" },
          body: JSON.stringify({ name: "Shared" })
        })
      const answers: Array<Answer> = []
      for (let i = 0; i < 6; i++) answers.push(yield* create(i % 2 === 0 ? a.url : b.url))
      expect(answers.map((x) => x.status)).toEqual([201, 201, 201, 201, 201, 201])
      expect(answers.filter((x) => !x.replayed)).toHaveLength(1)
      const concurrent = yield* Effect.all(Array.from({ length: 20 }, (_, i) => create(i % 2 === 0 ? a.url : b.url)), { concurrency: "unbounded" })
      expect(concurrent.every((x) => x.status === 201 && x.replayed)).toBe(true)
      const rows = yield* server.withSql(Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM clients WHERE organization_id = ${org.organizationId}`))
      expect(rows[0].n).toBe(1)

      // A key limited to 10 gets exactly 10 accepted requests across both, sent at once.
      const limited = yield* server.organization(["clients:read"], { rateLimit: 10 })
      const reads = yield* Effect.all(
        Array.from({ length: 30 }, (_, i) => send(`${i % 2 === 0 ? a.url : b.url}/api/v1/clients`, { headers: { "x-api-key": limited.apiKey } })),
        { concurrency: "unbounded" }
      )
      expect(reads.filter((x) => x.status === 200)).toHaveLength(10)
      expect(reads.filter((x) => x.status === 429)).toHaveLength(20)
    })), { timeout: 120_000 })
})
