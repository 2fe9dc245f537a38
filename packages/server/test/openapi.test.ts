import { describe, expect, it, layer } from "@effect/vitest"
import SwaggerParser from "@apidevtools/swagger-parser"
import { Api } from "@bizops/domain"
import { openApiDocument } from "@bizops/server"
import { repoRoot, TestServer, TestServerLive } from "@bizops/testkit"
import { createConfig, lintFromString } from "@redocly/openapi-core"
import { Validator } from "@seriousme/openapi-schema-validator"
import { Ajv2020 } from "ajv/dist/2020.js"
import addFormats from "ajv-formats"
import { Effect, Schema } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import { HttpApiClient } from "effect/http-api"
import { execFile } from "node:child_process"
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { createServer, type Server } from "node:http"
import { join } from "node:path"
import { promisify } from "node:util"
import openapiTS, { astToString } from "openapi-typescript"

type Json = Record<string, unknown>
const isObject = (value: unknown): value is Json => value !== null && typeof value === "object" && !Array.isArray(value)

/** The value at a path of keys in a JSON document (undefined where there is none). */
const at = (node: unknown, ...keys: ReadonlyArray<string>): unknown => keys.reduce<unknown>((n, key) => (isObject(n) ? n[key] : undefined), node)
/** The object at a path of keys (empty where there is none). */
const objectAt = (node: unknown, ...keys: ReadonlyArray<string>): Json => {
  const value = at(node, ...keys)
  return isObject(value) ? value : {}
}
const listAt = (node: unknown, ...keys: ReadonlyArray<string>): ReadonlyArray<unknown> => {
  const value = at(node, ...keys)
  return Array.isArray(value) ? value : []
}

const document = openApiDocument()
const schemas = objectAt(document, "components", "schemas")
const operations = Object.entries(objectAt(document, "paths")).flatMap(([path, item]) =>
  Object.entries(objectAt(item)).map(([method, operation]) => ({ path, method, operation: objectAt(operation) }))
)

/** Every component reachable from `node` through `$ref`s. */
const reachable = (node: unknown, found = new Set<string>()): Set<string> => {
  if (Array.isArray(node)) for (const item of node) reachable(item, found)
  else if (isObject(node)) {
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string" && value.startsWith("#/components/schemas/")) {
        const name = value.slice("#/components/schemas/".length)
        if (!found.has(name)) {
          found.add(name)
          reachable(schemas[name], found)
        }
      } else reachable(value, found)
    }
  }
  return found
}

/** Whether some object schema in `node` (not following `$ref`s) refuses unknown properties. */
const closed = (node: unknown): boolean =>
  Array.isArray(node) ? node.some(closed) : isObject(node) && (node.additionalProperties === false || Object.values(node).some(closed))

/** Ajv 2020 with formats, strict, with every component schema loaded as `urn:bizops:<Name>`. */
const makeAjv = () => {
  const ajv = new Ajv2020({ strict: true, allErrors: true })
  addFormats.default(ajv)
  const rewrite = (node: unknown): unknown =>
    Array.isArray(node)
      ? node.map(rewrite)
      : isObject(node)
      ? Object.fromEntries(Object.entries(node).map(([key, value]) => [key, key === "$ref" && typeof value === "string" ? value.replace("#/components/schemas/", "urn:bizops:") : rewrite(value)]))
      : node
  for (const [name, schema] of Object.entries(schemas)) ajv.addSchema({ ...objectAt(rewrite(schema)), $id: `urn:bizops:${name}` })
  return ajv
}

describe("the OpenAPI document", () => {
  it("passes @seriousme/openapi-schema-validator and @apidevtools/swagger-parser", async () => {
    const result = await new Validator().validate(structuredClone(document))
    expect(result.errors ?? []).toEqual([])
    expect(result.valid).toBe(true)
    const file = join(mkdtempSync(join(repoRoot, "node_modules", ".cache", "openapi-")), "openapi.json")
    writeFileSync(file, JSON.stringify(document))
    await SwaggerParser.validate(file)
  })

  it("loads in Ajv 2020 (strict, with formats): every component schema compiles", () => {
    const ajv = makeAjv()
    for (const name of Object.keys(schemas)) expect(typeof ajv.getSchema(`urn:bizops:${name}`), name).toBe("function")
  })

  it("gives every request body an example that its own schema accepts", () => {
    const ajv = makeAjv()
    const bodies = [...reachable(operations.map(({ operation }) => operation.requestBody))].filter((name) => /(Create|Update|Reissue)$/.test(name))
    expect(bodies.length).toBeGreaterThanOrEqual(17)
    for (const name of bodies) {
      const examples = listAt(schemas, name, "examples")
      expect(examples.length, name).toBeGreaterThan(0)
      const validate = ajv.getSchema(`urn:bizops:${name}`)
      for (const example of examples) expect({ name, valid: validate?.(example), errors: validate?.errors ?? null }).toEqual({ name, valid: true, errors: null })
    }
  })

  it("has no problem under Redocly's recommended rules", async () => {
    const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: "openapi.json", config: await createConfig({ extends: ["recommended"] }) })
    expect(problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} (${p.location[0]?.pointer ?? ""})`)).toEqual([])
  })

  it("names every operation: a summary, a unique operationId, a tag with a description", () => {
    const ids = operations.map(({ operation }) => operation.operationId)
    expect(new Set(ids).size).toBe(ids.length)
    for (const { method, operation, path } of operations) {
      expect(typeof operation.summary, `${method} ${path}`).toBe("string")
      expect(typeof operation.operationId, `${method} ${path}`).toBe("string")
    }
    for (const tag of listAt(document, "tags")) expect(typeof at(tag, "description"), String(at(tag, "name"))).toBe("string")
    for (const [name, item] of Object.entries(objectAt(document, "webhooks"))) expect(at(item, "post", "operationId"), name).toBe(`webhook.${name}`)
  })

  it("lists the errors each operation can produce, with every 409 code and every detail code", () => {
    for (const { method, operation, path } of operations) {
      const statuses = Object.keys(objectAt(operation, "responses"))
      const where = `${method} ${path}`
      expect(statuses, where).not.toContain("405")
      if (method === "get") expect(statuses, where).not.toContain("413")
      expect(statuses, where).toEqual(expect.arrayContaining(["400", "401", "403", "429", "500"]))
      if (method === "post" || method === "patch") {
        const conflict = JSON.stringify(at(operation, "responses", "409"))
        for (const error of ["IdempotencyKeyReusedError", "RequestInProgressError"]) expect(conflict, where).toContain(error)
      }
    }
    const codeOf = (name: string) => at(schemas, name, "properties", "error", "properties", "code", "enum")
    expect([codeOf("ConflictError"), codeOf("IdempotencyKeyReusedError"), codeOf("RequestInProgressError")]).toEqual([["conflict"], ["idempotency_key_reused"], ["request_in_progress"]])
    expect(at(schemas, "ErrorDetails", "properties", "code", "enum")).toEqual(
      expect.arrayContaining(["record_has_dependents", "duplicate_record", "invoice_not_deletable", "record_immutable", "quota_exceeded", "invalid_payload"])
    )
    expect(at(schemas, "ErrorDetails", "properties", "issues")).toEqual({ type: "array", items: { $ref: "#/components/schemas/ValidationIssue" } })
  })

  it("declares the headers: X-Request-Id everywhere, the rate limit's, Retry-After on 429, Idempotency-Key and Idempotent-Replayed on writes", () => {
    for (const { method, operation, path } of operations) {
      const where = `${method} ${path}`
      const parameters = JSON.stringify(operation.parameters)
      expect(parameters, where).toContain("#/components/parameters/RequestId")
      const writes = method === "post" || method === "patch"
      const key = listAt(operation, "parameters").find((p) => at(p, "name") === "Idempotency-Key")
      expect(key !== undefined, where).toBe(writes)
      if (key !== undefined) expect(at(key, "example"), where).toBe(`${String(operation.operationId)}-0001`)
      for (const [status, response] of Object.entries(objectAt(operation, "responses"))) {
        const headers = Object.keys(objectAt(response, "headers"))
        expect(headers, `${where} ${status}`).toContain("X-Request-Id")
        if (status !== "401") expect(headers, `${where} ${status}`).toEqual(expect.arrayContaining(["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "RateLimit", "RateLimit-Policy"]))
        if (status === "429") expect(headers, `${where} ${status}`).toContain("Retry-After")
        if (writes && status.startsWith("2")) expect(headers, `${where} ${status}`).toContain("Idempotent-Replayed")
      }
    }
  })

  it("types the query parameters (bounds, defaults), and gives dates and timestamps their formats", () => {
    const list = operations.find(({ method, path }) => method === "get" && path === "/api/v1/invoices")?.operation
    const parameter = (name: string) => at(listAt(list, "parameters").find((p) => at(p, "name") === name), "schema")
    expect(parameter("page")).toEqual({ type: "integer", minimum: 1, default: 1 })
    expect(parameter("pageSize")).toEqual({ type: "integer", minimum: 1, maximum: 100, default: 25 })
    expect(parameter("updatedSince")).toEqual({ type: "string", format: "date-time" })
    expect(parameter("overdue")).toEqual({ type: "boolean" })
    expect([at(schemas, "Client", "properties", "createdAt"), at(schemas, "Client", "properties", "updatedAt")]).toEqual([{ type: "string", format: "date-time" }, { type: "string", format: "date-time" }])
    expect(at(schemas, "Date", "format")).toBe("date")
    expect(JSON.stringify(at(schemas, "Invoice"))).toContain("#/components/schemas/Date")
    // The names are ours: no Effect internals (`DateFromString`, `Int`, a check's name as a title).
    for (const name of Object.keys(schemas)) expect(name).toMatch(/^[A-Z][A-Za-z]+$/)
    expect(JSON.stringify(document).match(/"(title|\$ref)":"([^"]*\/)?(Int|DateFromString|NumberFromString|[A-Za-z]+\([^"]*\))"/g)).toBeNull()
  })

  it("leaves response schemas open to new fields and keeps request bodies strict", () => {
    const requests = reachable(operations.map(({ operation }) => operation.requestBody))
    const responses = reachable(operations.map(({ operation }) => operation.responses))
    expect([...responses].filter((name) => closed(schemas[name]))).toEqual([])
    expect(operations.filter(({ operation }) => closed(operation.responses)).map(({ path }) => path)).toEqual([])
    for (const name of ["ClientCreate", "ContactUpdate", "InvoiceCreate", "PaymentCreate", "WebhookCreate"]) {
      expect(requests.has(name), name).toBe(true)
      expect(at(schemas, name, "additionalProperties"), name).toBe(false)
    }
  })
})

/**
 * A server in front of the API that adds a field no client knows to every record and every list it
 * answers, as the next additive release of the API would.
 */
const futureServer = (upstream: string) =>
  Effect.acquireRelease(
    Effect.promise(() =>
      new Promise<Server>((resolve) => {
        const addField = (node: unknown): unknown =>
          Array.isArray(node) ? node.map(addField) : isObject(node) ? { ...Object.fromEntries(Object.entries(node).map(([k, v]) => [k, addField(v)])), futureField: { added: "later" } } : node
        const server = createServer((req, res) => {
          const chunks: Array<Buffer> = []
          req.on("data", (chunk: Buffer) => chunks.push(chunk))
          req.on("end", () => {
            const headers = Object.fromEntries(Object.entries(req.headers).flatMap(([k, v]) => typeof v === "string" && k !== "host" && k !== "content-length" ? [[k, v]] : []))
            const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined
            void fetch(`${upstream}${req.url ?? "/"}`, { method: req.method ?? "GET", headers, ...(body === undefined ? {} : { body }) }).then(async (answer) => {
              const text = await answer.text()
              const out = text.length > 0 && (answer.headers.get("content-type") ?? "").includes("json") ? JSON.stringify(addField(JSON.parse(text))) : text
              res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json" })
              res.end(out)
            })
          })
        })
        server.listen(0, "127.0.0.1", () => resolve(server))
      })
    ),
    (server) => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
  ).pipe(Effect.map((server) => {
    const address = server.address()
    return `http://127.0.0.1:${address !== null && typeof address === "object" ? address.port : 0}`
  }))

const run = promisify(execFile)

/** What the openapi-fetch program prints. */
const Answer = Schema.Struct({
  name: Schema.String,
  reads: Schema.Array(Schema.Struct({ path: Schema.String, status: Schema.Number, data: Schema.Unknown })),
  lists: Schema.Array(Schema.Struct({ path: Schema.String, status: Schema.Number, data: Schema.Unknown }))
})

/** The `200` schema of `GET path`, as a `$ref` Ajv resolves. */
const okSchema = (path: string) => {
  const schema = at(document, "paths", path, "get", "responses", "200", "content", "application/json", "schema")
  return objectAt(JSON.parse(JSON.stringify(schema).replaceAll("#/components/schemas/", "urn:bizops:")))
}

layer(TestServerLive)("clients written from the OpenAPI document", (it) => {
  it.effect("the typed client returns each 409 as its typed error, with its detail code", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* server.organization()
      const withKey = HttpClient.mapRequest(HttpClientRequest.setHeader("x-api-key", org.apiKey))
      const api = yield* HttpApiClient.make(Api, { baseUrl: server.baseUrl, transformClient: withKey })
      const client = yield* api.clients.create({ payload: { name: "Dupes Co" } })
      yield* api.contacts.create({ payload: { name: "Ann", email: "ann@example.com", clientId: client.id } })
      const duplicate = yield* Effect.flip(api.contacts.create({ payload: { name: "Ann again", email: "ann@example.com", clientId: client.id } }))
      expect({ tag: duplicate._tag, detail: duplicate._tag === "Conflict" ? duplicate.details?.code : undefined }).toEqual({ tag: "Conflict", detail: "duplicate_record" })
      const once = yield* HttpApiClient.make(Api, {
        baseUrl: server.baseUrl,
        transformClient: (http) => http.pipe(withKey, HttpClient.mapRequest(HttpClientRequest.setHeader("idempotency-key", "reused-key")))
      })
      yield* once.clients.create({ payload: { name: "First" } })
      const reused = yield* Effect.flip(once.clients.create({ payload: { name: "Second" } }))
      expect(reused._tag).toBe("IdempotencyKeyReused")
      const dependents = yield* Effect.flip(api.clients.delete({ params: { id: client.id } }))
      expect({ tag: dependents._tag, detail: dependents._tag === "Conflict" ? dependents.details?.code : undefined }).toEqual({ tag: "Conflict", detail: "record_has_dependents" })
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.effect("the typed client and an openapi-fetch client generated by openapi-typescript read every resource with a field they do not know", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* server.organization()
      const withKey = HttpClient.mapRequest(HttpClientRequest.setHeader("x-api-key", org.apiKey))
      const api = yield* HttpApiClient.make(Api, { baseUrl: server.baseUrl, transformClient: withKey })
      const client = yield* api.clients.create({ payload: { name: "Future Co" } })
      const contact = yield* api.contacts.create({ payload: { name: "Ann", clientId: client.id } })
      const project = yield* api.projects.create({ payload: { name: "Wedding", clientId: client.id } })
      const day = yield* api.eventDays.create({ payload: { date: "2026-12-05", projectId: project.id } })
      const item = yield* api.timelineItems.create({ payload: { eventDayId: day.id, title: "Ceremony", durationMinutes: 30 } })
      const invoice = yield* api.invoices.create({
        payload: { clientId: client.id, status: "sent", lineItems: [{ description: "Coverage", quantity: 1, unitPrice: 100 }] }
      })
      const payment = yield* api.payments.create({ payload: { clientId: client.id, invoiceId: invoice.id, amount: 10, receivedDate: "2026-11-01", method: "cash" } })
      const webhook = yield* api.webhooks.create({ payload: { url: "https://example.com/hook", events: ["sale_voided"] } })
      const [version] = (yield* api.documentVersions.list({ query: { documentId: invoice.id } })).data
      expect(version?.versionStatus).toBe("issued")

      // The typed client of the domain package, against a server that adds a field to everything.
      const baseUrl = yield* futureServer(server.baseUrl)
      const future = yield* HttpApiClient.make(Api, { baseUrl, transformClient: withKey })
      const read = [
        yield* future.clients.get({ params: { id: client.id } }),
        yield* future.contacts.get({ params: { id: contact.id } }),
        yield* future.projects.get({ params: { id: project.id } }),
        yield* future.eventDays.get({ params: { id: day.id } }),
        yield* future.timelineItems.get({ params: { id: item.id } }),
        yield* future.invoices.get({ params: { id: invoice.id } }),
        yield* future.payments.get({ params: { id: payment.id } }),
        yield* future.webhooks.get({ params: { id: webhook.id } })
      ]
      expect(read.map((record) => record.id)).toEqual([client, contact, project, day, item, invoice, payment, webhook].map((r) => r.id))
      const pages = [
        yield* future.clients.list({ query: {} }),
        yield* future.contacts.list({ query: {} }),
        yield* future.projects.list({ query: {} }),
        yield* future.eventDays.list({ query: {} }),
        yield* future.timelineItems.list({ query: {} }),
        yield* future.invoices.list({ query: {} }),
        yield* future.payments.list({ query: {} }),
        yield* future.documentVersions.list({ query: {} }),
        yield* future.webhooks.list({ query: {} })
      ]
      expect(pages.map((page) => page.data.length)).toEqual([1, 1, 1, 1, 1, 1, 1, 1, 1])
      if (version === undefined) return

      // An integrator's client: types generated by openapi-typescript, requests by openapi-fetch,
      // type-checked by tsc with default settings, then run against the same server.
      // Outside node_modules (Node strips types only there), with the two packages it needs linked in.
      const dir = mkdtempSync(join(tmpdir(), "openapi-fetch-"))
      mkdirSync(join(dir, "node_modules", "@types"), { recursive: true })
      symlinkSync(join(repoRoot, "node_modules", "openapi-fetch"), join(dir, "node_modules", "openapi-fetch"))
      symlinkSync(join(repoRoot, "node_modules", "@types", "node"), join(dir, "node_modules", "@types", "node"))
      const ids = { client: client.id, contact: contact.id, project: project.id, day: day.id, item: item.id, invoice: invoice.id, payment: payment.id, version: version.id, webhook: webhook.id }
      const types = yield* Effect.promise(() => openapiTS(JSON.stringify(document)))
      writeFileSync(join(dir, "openapi.d.ts"), astToString(types))
      writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }))
      writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, module: "nodenext", target: "es2022", noEmit: true, allowImportingTsExtensions: true }, include: ["*.ts"] }))
      writeFileSync(
        join(dir, "client.ts"),
        `import createClient from "openapi-fetch"
import type { paths } from "./openapi.d.ts"

const [baseUrl = "", key = "", idsText = "{}"] = process.argv.slice(2)
const ids: Record<string, string> = JSON.parse(idsText)
const api = createClient<paths>({ baseUrl, headers: { "x-api-key": key } })
const one = (id: string | undefined) => ({ params: { path: { id: id ?? "" } } })
const reads = [
  ["/api/v1/clients", await api.GET("/api/v1/clients/{id}", one(ids.client))],
  ["/api/v1/contacts", await api.GET("/api/v1/contacts/{id}", one(ids.contact))],
  ["/api/v1/projects", await api.GET("/api/v1/projects/{id}", one(ids.project))],
  ["/api/v1/event-days", await api.GET("/api/v1/event-days/{id}", one(ids.day))],
  ["/api/v1/timeline-items", await api.GET("/api/v1/timeline-items/{id}", one(ids.item))],
  ["/api/v1/invoices", await api.GET("/api/v1/invoices/{id}", one(ids.invoice))],
  ["/api/v1/payments", await api.GET("/api/v1/payments/{id}", one(ids.payment))],
  ["/api/v1/document-versions", await api.GET("/api/v1/document-versions/{id}", one(ids.version))],
  ["/api/v1/webhooks", await api.GET("/api/v1/webhooks/{id}", one(ids.webhook))]
] as const
const lists = [
  ["/api/v1/clients", await api.GET("/api/v1/clients", { params: { query: { page: 1, pageSize: 25 } } })],
  ["/api/v1/invoices", await api.GET("/api/v1/invoices", { params: { query: { overdue: false } } })],
  ["/api/v1/document-versions", await api.GET("/api/v1/document-versions")]
] as const
// The generated types know the fields: a typo here would not compile.
const name: string | undefined = (await api.GET("/api/v1/clients/{id}", one(ids.client))).data?.name
process.stdout.write(JSON.stringify({ name, reads: reads.map(([path, r]) => ({ path, status: r.response.status, data: r.data })), lists: lists.map(([path, r]) => ({ path, status: r.response.status, data: r.data })) }))
`
      )
      const tsc = join(repoRoot, "node_modules", "typescript", "bin", "tsc")
      yield* Effect.promise(() => run(process.execPath, [tsc, "-p", dir]).catch((error: { readonly stdout?: string }) => ({ stdout: `tsc failed: ${error.stdout ?? ""}`, stderr: "" })))
        .pipe(Effect.map(({ stdout }) => expect(stdout).toBe("")))
      const { stdout } = yield* Effect.promise(() => run(process.execPath, [join(dir, "client.ts"), baseUrl, org.apiKey, JSON.stringify(ids)]))
      const answer = Schema.decodeUnknownSync(Answer)(JSON.parse(stdout))
      expect(answer.name).toBe("Future Co")
      const ajv = makeAjv()
      for (const { data, path, status } of answer.reads) {
        expect({ path, status, futureField: at(data, "futureField") }).toEqual({ path, status: 200, futureField: { added: "later" } })
        const validate = ajv.compile(okSchema(`${path}/{id}`))
        expect({ path, valid: validate(data), errors: validate.errors ?? null }).toEqual({ path, valid: true, errors: null })
      }
      for (const { data, path, status } of answer.lists) {
        expect({ path, status, records: listAt(data, "data").length }).toEqual({ path, status: 200, records: 1 })
        const validate = ajv.compile(okSchema(path))
        expect({ path, valid: validate(data), errors: validate.errors ?? null }).toEqual({ path, valid: true, errors: null })
      }
    }).pipe(Effect.provide(FetchHttpClient.layer), Effect.scoped), { timeout: 120_000 })
})
