// The hand-written baseline of `npm run bench`: plain node:http and pg, doing the service's work for
//   GET  /api/v1/clients/{id}
//   GET  /api/v1/clients?page=&pageSize=
//   POST /api/v1/clients            (Idempotency-Key honoured)
// with API-key authentication and the per-key rate-limit counter in PostgreSQL. Anything else: 404.
//
// env: DATABASE_URL (required), PORT (0 = any free port), HOST (default 127.0.0.1),
//      BASELINE_POOL_SIZE (default 10), BASELINE_COUNTER_POOL_SIZE (default BASELINE_POOL_SIZE).
// Prints `Listening on http://HOST:PORT` once it listens.
import { createHash, randomUUID } from "node:crypto"
import { createServer } from "node:http"
import pg from "pg"

const DATABASE_URL = process.env.DATABASE_URL
if (!DATABASE_URL) throw new Error("DATABASE_URL is required")
const POOL_SIZE = Number(process.env.BASELINE_POOL_SIZE || 10)
const COUNTER_POOL_SIZE = Number(process.env.BASELINE_COUNTER_POOL_SIZE || POOL_SIZE)

// Column values as the service returns them: numeric/bigint as numbers, date as YYYY-MM-DD text.
const NUMERIC_OID = 1700
const INT8_OID = 20
const DATE_OID = 1082
const toNumber = (v) => Number(v)
const asText = (v) => v
const types = {
  getTypeParser: (oid, format) =>
    oid === NUMERIC_OID || oid === INT8_OID ? toNumber : oid === DATE_OID ? asText : pg.types.getTypeParser(oid, format)
}

/** Reads and writes of the resources. */
const pool = new pg.Pool({ connectionString: DATABASE_URL, max: POOL_SIZE, types, application_name: "bizops-baseline" })
/** The rate-limit counter: it needs no durability, so its commits do not wait for the WAL flush. */
const counterPool = new pg.Pool({
  connectionString: DATABASE_URL,
  max: COUNTER_POOL_SIZE,
  types,
  application_name: "bizops-baseline-counter",
  options: "-c synchronous_commit=off"
})

// An idle client's connection can be cut (the bench drops the database with FORCE at the end).
pool.on("error", () => {})
counterPool.on("error", () => {})

const AUTH = {
  name: "bl_auth",
  text: `WITH k AS (
  SELECT k.id, k.organization_id, k.scopes, k.rate_limit, b.id AS business_id
  FROM api_keys k JOIN businesses b ON b.organization_id = k.organization_id AND b.is_default
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
}
const GET_CLIENT = { name: "bl_get_client", text: "SELECT * FROM clients WHERE organization_id = $1 AND id = $2" }
const LIST_CLIENTS = {
  name: "bl_list_clients",
  text: "SELECT * FROM clients WHERE organization_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3"
}
const COUNT_CLIENTS = { name: "bl_count_clients", text: "SELECT count(*)::int AS n FROM clients WHERE organization_id = $1" }
const INSERT_CLIENT = {
  name: "bl_insert_client",
  text: `INSERT INTO clients (id, organization_id, business_id, name, status, notes)
VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`
}
const IDEM_LOCK = { name: "bl_idem_lock", text: "SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS locked" }
const IDEM_FIND = {
  name: "bl_idem_find",
  text: `SELECT fingerprint, status, headers, body FROM idempotency_keys
WHERE organization_id = $1 AND credential_id = $2 AND key = $3 AND expires_at > $4`
}
// An expired record of the same key (not purged yet) is replaced.
const IDEM_INSERT = {
  name: "bl_idem_insert",
  text: `INSERT INTO idempotency_keys (organization_id, credential_id, key, fingerprint, status, headers, body, created_at, expires_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
ON CONFLICT (organization_id, credential_id, key) DO UPDATE SET
  fingerprint = EXCLUDED.fingerprint, status = EXCLUDED.status, headers = EXCLUDED.headers,
  body = EXCLUDED.body, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at`
}
const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000

const q = (client, statement, values) => client.query({ name: statement.name, text: statement.text, values })

// ---------------------------------------------------------------------------------------------
// Responses

const JSON_TYPE = "application/json"
const MAX_BODY_BYTES = 1024 * 1024
const KEY_SHAPE = /^bok_[A-Za-z0-9_-]{43}$/
const BEARER = /^Bearer\s+(\S+)\s*$/i
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const REQUEST_ID = /^[\x21-\x7e]{1,200}$/
const IDEMPOTENCY_KEY = /^[\x20-\x7e]{1,255}$/
const STATUSES = new Set(["new", "contacted", "qualified", "active", "inactive", "declined", "spam"])

const requestIdOf = (header) =>
  header !== undefined && REQUEST_ID.test(header) ? header : `req_${randomUUID().replaceAll("-", "")}`

const send = (res, status, body, headers) => {
  headers["content-type"] = JSON_TYPE
  headers["content-length"] = Buffer.byteLength(body)
  res.writeHead(status, headers)
  res.end(body)
}

const sendError = (res, status, code, message, headers) =>
  send(res, status, JSON.stringify({ error: { code, message, requestId: headers["x-request-id"] } }), headers)

/** A client row as the API's Client: the same field names, order and values as the service. */
const toClient = (row) => ({
  id: row.id,
  name: row.name,
  status: row.status,
  businessId: row.business_id,
  notes: row.notes,
  taxSettings: { defaultTaxable: row.tax_default_taxable, overrideTaxRate: row.tax_override_rate, taxRate: row.tax_rate },
  invoiceRemindersEnabled: row.invoice_reminders_enabled,
  attachInvoicePdf: row.attach_invoice_pdf,
  attachReceiptPdf: row.attach_receipt_pdf,
  recurringBilling: row.recurring_billing,
  sourceSubmissionId: row.source_submission_id,
  createdAt: row.created_at,
  updatedAt: row.updated_at
})

// ---------------------------------------------------------------------------------------------
// Authentication and the rate limit, in one round trip

const credentialOf = (headers) => {
  const apiKey = headers["x-api-key"]
  if (apiKey !== undefined && apiKey.length > 0) return apiKey.trim()
  const authorization = headers["authorization"]
  if (authorization === undefined) return undefined
  const match = BEARER.exec(authorization)
  return match === null ? undefined : match[1]
}

/**
 * The principal of the request, with the rate-limit headers already in `headers`; or undefined
 * once a 401, 403 or 429 has been sent.
 */
const authenticate = async (req, res, headers, scope) => {
  const credential = credentialOf(req.headers)
  if (credential === undefined || !KEY_SHAPE.test(credential)) {
    headers["www-authenticate"] = 'Bearer realm="api"'
    sendError(
      res,
      401,
      "unauthorized",
      credential === undefined
        ? "Missing credentials: send x-api-key: KEY or Authorization: Bearer KEY"
        : "The API key is not valid or has been revoked",
      headers
    )
    return undefined
  }
  const hash = createHash("sha256").update(credential, "utf8").digest()
  const now = new Date()
  const { rows } = await q(counterPool, AUTH, [hash, now])
  const row = rows[0]
  if (row === undefined) {
    headers["www-authenticate"] = 'Bearer realm="api"'
    sendError(res, 401, "unauthorized", "The API key is not valid or has been revoked", headers)
    return undefined
  }
  const limit = row.rate_limit
  const remaining = limit > row.count ? limit - row.count : 0
  const resetAt = row.window_start.getTime() + 3_600_000
  const reset = Math.ceil(resetAt / 1000)
  const resetIn = Math.max(1, Math.ceil((resetAt - now.getTime()) / 1000))
  headers["x-ratelimit-limit"] = limit
  headers["x-ratelimit-remaining"] = remaining
  headers["x-ratelimit-reset"] = reset
  headers["ratelimit-policy"] = `"hourly";q=${limit};w=3600`
  headers["ratelimit"] = `"hourly";r=${remaining};t=${resetIn}`
  if (row.count > limit) {
    headers["retry-after"] = resetIn
    sendError(res, 429, "rate_limited", `Rate limit of ${limit} requests per hour exceeded`, headers)
    return undefined
  }
  if (!row.scopes.includes(scope)) {
    sendError(res, 403, "forbidden", `This credential lacks the scope ${scope}`, headers)
    return undefined
  }
  return row
}

// ---------------------------------------------------------------------------------------------
// Routes

const getClient = async (req, res, headers, id) => {
  const principal = await authenticate(req, res, headers, "clients:read")
  if (principal === undefined) return
  if (!UUID.test(id)) return sendError(res, 404, "not_found", "The client does not exist", headers)
  const { rows } = await q(pool, GET_CLIENT, [principal.organization_id, id])
  if (rows.length === 0) return sendError(res, 404, "not_found", "The client does not exist", headers)
  send(res, 200, JSON.stringify(toClient(rows[0])), headers)
}

/** page / pageSize: integers, 1.. and 1..100; undefined when invalid. */
const pageParam = (params, name, fallback, max) => {
  const raw = params.get(name)
  if (raw === null) return fallback
  if (!/^\d+$/.test(raw)) return undefined
  const n = Number(raw)
  return n >= 1 && n <= max ? n : undefined
}

const listClients = async (req, res, headers, query) => {
  const principal = await authenticate(req, res, headers, "clients:read")
  if (principal === undefined) return
  let page = 1
  let pageSize = 25
  if (query !== "") {
    const params = new URLSearchParams(query)
    page = pageParam(params, "page", 1, Number.MAX_SAFE_INTEGER)
    pageSize = pageParam(params, "pageSize", 25, 100)
    if (page === undefined || pageSize === undefined) {
      return sendError(res, 400, "invalid_request", "page must be an integer >= 1 and pageSize an integer from 1 to 100", headers)
    }
  }
  const org = principal.organization_id
  const [counted, listed] = await Promise.all([
    q(pool, COUNT_CLIENTS, [org]),
    q(pool, LIST_CLIENTS, [org, pageSize, (page - 1) * pageSize])
  ])
  const total = counted.rows[0].n
  const totalPages = Math.ceil(total / pageSize)
  const data = listed.rows.map(toClient)
  send(res, 200, JSON.stringify({ data, pagination: { page, pageSize, total, totalPages, hasMore: page < totalPages } }), headers)
}

const readBody = (req) =>
  new Promise((resolve, reject) => {
    const chunks = []
    let size = 0
    req.on("data", (chunk) => {
      size += chunk.length
      if (size <= MAX_BODY_BYTES) chunks.push(chunk)
    })
    req.on("end", () => resolve(size > MAX_BODY_BYTES ? null : chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)))
    req.on("error", reject)
  })

/** JSON with its object keys sorted and no white space: the canonical form the fingerprint hashes. */
const canonical = (value) =>
  Array.isArray(value)
    ? `[${value.map(canonical).join(",")}]`
    : value !== null && typeof value === "object"
    ? `{${Object.keys(value).filter((k) => value[k] !== undefined).sort().map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(",")}}`
    : JSON.stringify(value) ?? "null"

/** The subset of ClientCreate the baseline implements: name, status, notes. A message when invalid. */
const invalidCreate = (body) => {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return "The body must be a JSON object"
  for (const key in body) {
    if (key !== "name" && key !== "status" && key !== "notes") return `${key}: is not a known field`
  }
  if (typeof body.name !== "string" || body.name.length < 1 || body.name.length > 200) return "name: must be 1 to 200 characters"
  if (body.status !== undefined && !STATUSES.has(body.status)) return "status: is not a known status"
  if (body.notes !== undefined && body.notes !== null && (typeof body.notes !== "string" || body.notes.length > 5000)) {
    return "notes: must be at most 5000 characters"
  }
  return undefined
}

const createClient = async (req, res, headers, path) => {
  // The counting round trip runs while the body arrives.
  const [principal, raw] = await Promise.all([authenticate(req, res, headers, "clients:write"), readBody(req)])
  if (principal === undefined) return
  if (raw === null) return sendError(res, 413, "payload_too_large", `The request body is larger than ${MAX_BODY_BYTES} bytes`, headers)
  let body
  try {
    body = JSON.parse(raw.toString("utf8"))
  } catch {
    return sendError(res, 400, "invalid_request", "The body is not valid JSON", headers)
  }
  const invalid = invalidCreate(body)
  if (invalid !== undefined) return sendError(res, 400, "invalid_request", invalid, headers)
  const org = principal.organization_id
  const values = [randomUUID(), org, principal.business_id, body.name, body.status ?? "active", body.notes ?? null]

  const key = req.headers["idempotency-key"]
  if (key === undefined) {
    const { rows } = await q(pool, INSERT_CLIENT, values)
    return send(res, 201, JSON.stringify(toClient(rows[0])), headers)
  }
  if (!IDEMPOTENCY_KEY.test(key)) {
    return sendError(res, 400, "invalid_request", "Idempotency-Key must be 1 to 255 printable ASCII characters", headers)
  }
  // The service's credential id and fingerprint (method, path, canonical body; SHA-256, base64url).
  const credentialId = `key:${principal.id}`
  const fingerprint = createHash("sha256").update(`POST ${path}\n${canonical(body)}`).digest("base64url")
  const now = Date.now()
  const client = await pool.connect()
  try {
    await client.query("BEGIN")
    const locked = await q(client, IDEM_LOCK, [`${org}:${credentialId}:${key}`])
    if (!locked.rows[0].locked) {
      await client.query("ROLLBACK")
      return sendError(res, 409, "request_in_progress", "A request with this Idempotency-Key is in progress", headers)
    }
    const found = await q(client, IDEM_FIND, [org, credentialId, key, new Date(now)])
    const stored = found.rows[0]
    if (stored !== undefined) {
      await client.query("ROLLBACK")
      if (stored.fingerprint !== fingerprint) {
        return sendError(res, 409, "idempotency_key_reused", "This Idempotency-Key was used with another request", headers)
      }
      const replay = { ...headers, ...stored.headers, "idempotent-replayed": "true" }
      return send(res, stored.status, stored.body, replay)
    }
    const { rows } = await q(client, INSERT_CLIENT, values)
    const responseBody = JSON.stringify(toClient(rows[0]))
    const storedHeaders = JSON.stringify({ "content-type": JSON_TYPE, "x-request-id": headers["x-request-id"] })
    await q(client, IDEM_INSERT, [
      org, credentialId, key, fingerprint, 201, storedHeaders, responseBody, new Date(now), new Date(now + IDEMPOTENCY_TTL_MS)
    ])
    await client.query("COMMIT")
    send(res, 201, responseBody, headers)
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {})
    throw error
  } finally {
    client.release()
  }
}

const CLIENTS = "/api/v1/clients"
const CLIENT_PREFIX = "/api/v1/clients/"

const handle = (req, res) => {
  const headers = { "x-request-id": requestIdOf(req.headers["x-request-id"]) }
  const url = req.url
  const qm = url.indexOf("?")
  const path = qm === -1 ? url : url.slice(0, qm)
  let work
  if (path === CLIENTS) {
    if (req.method === "GET") work = listClients(req, res, headers, qm === -1 ? "" : url.slice(qm + 1))
    else if (req.method === "POST") work = createClient(req, res, headers, path)
    else {
      headers.allow = "GET, POST"
      return sendError(res, 405, "method_not_allowed", `${req.method} is not allowed on ${path}`, headers)
    }
  } else if (path.startsWith(CLIENT_PREFIX) && path.indexOf("/", CLIENT_PREFIX.length) === -1 && req.method === "GET") {
    work = getClient(req, res, headers, path.slice(CLIENT_PREFIX.length))
  } else {
    return sendError(res, 404, "not_found", `No route for ${req.method} ${path}`, headers)
  }
  work.catch((error) => {
    if (!stopping) process.stderr.write(`baseline: ${error?.stack ?? error}\n`)
    if (!res.headersSent) sendError(res, 500, "internal_error", "Something went wrong on our side", headers)
    else res.destroy()
  })
}

const server = createServer({ keepAliveTimeout: 65_000 }, handle)
server.listen(Number(process.env.PORT ?? 0), process.env.HOST || "127.0.0.1", () => {
  const { address, port } = server.address()
  process.stdout.write(`Listening on http://${address}:${port}\n`)
})

let stopping = false
const stop = () => {
  stopping = true
  server.close()
  server.closeAllConnections?.()
  Promise.allSettled([pool.end(), counterPool.end()]).then(() => process.exit(0))
}
process.once("SIGTERM", stop)
process.once("SIGINT", stop)
