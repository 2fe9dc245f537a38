/**
 * `npm run bench`: the service against a hand-written baseline (scripts/bench/baseline.mjs), side by
 * side, on a fresh PostgreSQL database that is dropped at the end (also on failure and Ctrl-C).
 *
 * env:
 *   DATABASE_URL          server to use (default postgres://postgres@127.0.0.1:5432/postgres); the role needs CREATEDB
 *   BENCH_SECONDS         measured seconds per run (default 10)
 *   BENCH_WARMUP_SECONDS  warm-up seconds before every measured run (default 3)
 *   BENCH_ROUNDS          measured runs per server and scenario, alternating baseline/service (default 2)
 *   BENCH_CONNECTIONS     autocannon connections (default 10)
 *   BENCH_SCENARIOS       comma-separated subset of get,list,create (default all)
 *   BASELINE_POOL_SIZE    the baseline's pg pool size (default 10)
 *
 *   `npm run bench -- webhooks`  webhook delivery instead (see README.md)
 *   `npm run bench -- imports`   the operator imports of 5,000 sales and 5,000 payouts (BENCH_IMPORT_SALES)
 *
 * Each scenario's figure is the BEST round (highest req/s) of each server, with that round's latency.
 * Exit code: 0 when every measured run got only the expected status; 1 when a run was invalid or the
 * bench failed; 130 on Ctrl-C. The database is dropped in every case.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { createServer as createHttpServer } from "node:http"
import { randomBytes } from "node:crypto"
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"
import pg from "pg"
import { Schema } from "effect"

const HERE = path.dirname(fileURLToPath(import.meta.url))
const ROOT = path.resolve(HERE, "../..")

const intEnv = (name: string, fallback: number) => {
  const raw = process.env[name]
  if (raw === undefined || raw === "") return fallback
  const n = Number(raw)
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a number >= 0, got ${raw}`)
  return n
}

const ADMIN_URL = process.env.DATABASE_URL || "postgres://postgres@127.0.0.1:5432/postgres"
const SECONDS = intEnv("BENCH_SECONDS", 10)
const WARMUP_SECONDS = intEnv("BENCH_WARMUP_SECONDS", 3)
const ROUNDS = Math.max(1, intEnv("BENCH_ROUNDS", 2))
const CONNECTIONS = Math.max(1, intEnv("BENCH_CONNECTIONS", 10))
const SEED_CLIENTS = 1000

type ScenarioName = "get" | "list" | "create"
interface Scenario {
  readonly name: ScenarioName
  readonly label: string
  readonly expectedStatus: number
}
const ALL_SCENARIOS: ReadonlyArray<Scenario> = [
  { name: "get", label: "GET /clients/{id}", expectedStatus: 200 },
  { name: "list", label: "GET /clients?pageSize=25", expectedStatus: 200 },
  { name: "create", label: "POST /clients (Idem-Key)", expectedStatus: 201 }
]
const wanted = (process.env.BENCH_SCENARIOS ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "")
const SCENARIOS = wanted.length === 0 ? ALL_SCENARIOS : ALL_SCENARIOS.filter((s) => wanted.includes(s.name))
if (SCENARIOS.length === 0) throw new Error(`BENCH_SCENARIOS names none of get, list, create`)

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`)

// ---------------------------------------------------------------------------------------------
// Cleanup: children stopped, database dropped, temp files removed; once, whatever happens.

const dbName = `bizops_bench_${randomBytes(6).toString("hex")}`
const benchUrl = (() => {
  const url = new URL(ADMIN_URL)
  url.pathname = `/${dbName}`
  return url.toString()
})()
let databaseCreated = false
const children: Array<ChildProcess> = []
const tempFiles: Array<string> = []

const stopChild = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    const timer = setTimeout(() => child.kill("SIGKILL"), 5_000)
    child.once("exit", () => {
      clearTimeout(timer)
      resolve()
    })
    child.kill("SIGTERM")
  })

let cleaning: Promise<void> | undefined
const cleanup = () =>
  (cleaning ??= (async () => {
    await Promise.all(children.map(stopChild))
    for (const file of tempFiles) rmSync(file, { force: true })
    if (databaseCreated) {
      const admin = new pg.Client({ connectionString: ADMIN_URL })
      try {
        await admin.connect()
        await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`)
        log(`dropped database ${dbName}`)
      } catch (error) {
        log(`could not drop database ${dbName}: ${String(error)}`)
      } finally {
        await admin.end().catch(() => {})
      }
    }
  })())

// `on`, not `once`: npm and tsx relay Ctrl-C a second time, and a process with no listener left
// would exit (tsx's rule) before the database is dropped. Later signals are ignored while cleaning.
let interrupted = false
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (interrupted) return
    interrupted = true
    log(`${signal}: cleaning up`)
    setTimeout(() => process.exit(130), 30_000).unref()
    void cleanup().finally(() => process.exit(130))
  })
}

process.on("uncaughtException", (error) => {
  process.stderr.write(`[bench] FAILED: ${error.stack ?? error.message}\n`)
  void cleanup().finally(() => process.exit(1))
})

// ---------------------------------------------------------------------------------------------
// Database: fresh, migrated, one organization, one all-scopes key, ~1000 clients.

const adminQuery = async <T extends pg.QueryResultRow>(url: string, text: string, values: Array<unknown> = []) => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query<T>(text, values)).rows
  } finally {
    await client.end()
  }
}

/** A TypeScript script of the repository run to its end (tsx), tracked for cleanup: its exit code, output and seconds. */
const runTsx = (script: string, args: ReadonlyArray<string>, env: NodeJS.ProcessEnv) =>
  new Promise<{ code: number | null; out: string; err: string; seconds: number }>((resolve) => {
    const started = performance.now()
    const child = spawn(path.join(ROOT, "node_modules/.bin/tsx"), ["--conditions=source", script, ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    children.push(child)
    let out = ""
    let err = ""
    child.stdout.on("data", (c: Buffer) => (out += c.toString("utf8")))
    child.stderr.on("data", (c: Buffer) => (err += c.toString("utf8")))
    child.once("exit", (code) => {
      children.splice(children.indexOf(child), 1)
      resolve({ code, out, err, seconds: (performance.now() - started) / 1000 })
    })
  })

/** What setup.ts prints, and what an import prints (its counts). */
const SetupResult = Schema.Struct({ organizationId: Schema.String, businessId: Schema.String, keyId: Schema.String, apiKey: Schema.String })
const ImportCounts = Schema.Struct({ created: Schema.Number, updated: Schema.Number, unchanged: Schema.Number })

/** The last line a script printed, as JSON. */
const lastJson = (out: string): unknown => JSON.parse(out.trim().split("\n").pop() ?? "null")

/** Runs setup.ts (migrations, organization, key) in a child process; its one line of JSON. */
const runSetup = async () => {
  const run = await runTsx(path.join(HERE, "setup.ts"), [], { BENCH_DATABASE_URL: benchUrl })
  if (run.code !== 0) throw new Error(`setup exited (${run.code}): ${run.err}`)
  try {
    return Schema.decodeUnknownSync(SetupResult)(lastJson(run.out))
  } catch {
    throw new Error(`setup printed no result: ${run.out}\n${run.err}`)
  }
}

const prepareDatabase = async () => {
  await adminQuery(ADMIN_URL, `CREATE DATABASE ${dbName}`)
  databaseCreated = true
  log(`created database ${dbName}`)

  const access = await runSetup()

  // Varied rows: some leads, some notes, some tax overrides (numeric) and recurring billing (jsonb).
  const rows = await adminQuery<{ id: string }>(
    benchUrl,
    `INSERT INTO clients (id, organization_id, business_id, name, status, notes, tax_override_rate, tax_rate,
                          recurring_billing, created_at, updated_at)
     SELECT gen_random_uuid(), $1, $2, 'Client ' || i,
            (ARRAY['new','contacted','qualified','active','inactive'])[1 + i % 5],
            CASE WHEN i % 3 = 0 THEN 'Notes about client ' || i END,
            i % 7 = 0, CASE WHEN i % 7 = 0 THEN 8.25 END,
            CASE WHEN i % 11 = 0 THEN '{"status":"active","nextBillingDate":"2027-01-01"}'::jsonb END,
            now() - i * interval '1 minute', now() - i * interval '1 minute'
     FROM generate_series(1, $3::int) AS i
     RETURNING id`,
    [access.organizationId, access.businessId, SEED_CLIENTS]
  )
  await adminQuery(benchUrl, "ANALYZE")
  log(`seeded ${rows.length} clients`)
  return { ...access, clientIds: rows.map((r) => r.id) }
}

// ---------------------------------------------------------------------------------------------
// Servers

interface Target {
  readonly name: "baseline" | "service"
  readonly url: string
  /** The server's own process (its CPU time is read from /proc). */
  readonly pid: number
}

const startServer = (name: Target["name"], command: string, args: Array<string>, env: NodeJS.ProcessEnv) =>
  new Promise<Target>((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] })
    children.push(child)
    let output = ""
    let ready = false
    const timer = setTimeout(() => reject(new Error(`${name} did not start in 60 s:\n${output}`)), 60_000)
    const onData = (chunk: Buffer) => {
      const text = chunk.toString("utf8")
      if (!ready) {
        output += text
        const match = /Listening on (http:\/\/[^\s"]+)/.exec(output)
        if (match !== null) {
          ready = true
          clearTimeout(timer)
          resolve({ name, url: match[1], pid: child.pid ?? 0 })
        }
      } else if (!cleaning && /error|fatal|defect/i.test(text)) {
        process.stderr.write(`[${name}] ${text}`)
      }
    }
    child.stdout!.on("data", onData)
    child.stderr!.on("data", onData)
    child.once("exit", (code, signal) => {
      clearTimeout(timer)
      if (!ready) reject(new Error(`${name} exited (${code ?? signal}) before listening:\n${output}`))
      else if (!cleaning) log(`${name} exited unexpectedly (${code ?? signal})`)
    })
  })

/** The service as one node process with tsx as its loader (the tsx command would run it in a child). */
const SERVICE_ARGS = ["--conditions=source", "--import", "tsx", "packages/server/src/main.ts"]

/** Clock ticks a second of /proc's CPU times (Linux: 100). */
const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim()) || 100
  } catch {
    return 100
  }
})()

/** CPU time (user + system) a process has used so far, in microseconds; undefined where /proc has none. */
const cpuMicros = (pid: number): number | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / CLOCK_TICKS
  } catch {
    return undefined
  }
}

const serverEnv = (): NodeJS.ProcessEnv => ({
  ...process.env,
  PORT: "0",
  HOST: "127.0.0.1",
  DATABASE_URL: benchUrl,
  NODE_ENV: "production"
})

// ---------------------------------------------------------------------------------------------
// Correctness before measuring: one request per route, on both servers.

interface Checked {
  readonly status: number
  readonly body: any
  readonly text: string
  readonly headers: Headers
}

const call = async (target: Target, apiKey: string, method: string, urlPath: string, body?: unknown, extra?: Record<string, string>): Promise<Checked> => {
  const response = await fetch(`${target.url}${urlPath}`, {
    method,
    headers: {
      "x-api-key": apiKey,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...extra
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await response.text()
  let parsed: unknown = undefined
  try {
    parsed = JSON.parse(text)
  } catch {
    // left undefined: the check below reports it
  }
  return { status: response.status, body: parsed, text, headers: response.headers }
}

const expect = (what: string, ok: boolean, detail: string) => {
  if (!ok) throw new Error(`check failed: ${what}: ${detail}`)
}

const checkTarget = async (target: Target, apiKey: string, clientId: string) => {
  const got = await call(target, apiKey, "GET", `/api/v1/clients/${clientId}`)
  expect(`${target.name} GET /clients/{id}`, got.status === 200 && got.body?.id === clientId, `${got.status} ${got.text.slice(0, 300)}`)
  const list = await call(target, apiKey, "GET", "/api/v1/clients?pageSize=25")
  expect(
    `${target.name} GET /clients?pageSize=25`,
    list.status === 200 && Array.isArray(list.body?.data) && list.body.data.length === 25 &&
      typeof list.body.data[0]?.id === "string" && list.body.pagination?.total >= SEED_CLIENTS,
    `${list.status} ${list.text.slice(0, 300)}`
  )
  const created = await call(target, apiKey, "POST", "/api/v1/clients", { name: `Check ${target.name}` }, {
    "idempotency-key": `check-${target.name}-${randomBytes(8).toString("hex")}`
  })
  expect(
    `${target.name} POST /clients`,
    created.status === 201 && typeof created.body?.id === "string" && created.body.name === `Check ${target.name}`,
    `${created.status} ${created.text.slice(0, 300)}`
  )
  const again = await call(target, apiKey, "GET", `/api/v1/clients/${created.body.id}`)
  expect(`${target.name} GET of the created client`, again.status === 200 && again.body?.id === created.body.id, `${again.status}`)
  return { got, list, created }
}

const HEADERS_OF_INTEREST = ["x-request-id", "x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"]

const checkBoth = async (baseline: Target, service: Target, apiKey: string, clientIds: ReadonlyArray<string>) => {
  // Seed row i = 77 has a numeric tax rate and a jsonb recurringBilling; i = 3 has notes.
  const richId = clientIds[76]!
  const notes: Array<string> = []
  for (const id of [richId, clientIds[2]!]) {
    const s = await call(service, apiKey, "GET", `/api/v1/clients/${id}`)
    const b = await call(baseline, apiKey, "GET", `/api/v1/clients/${id}`)
    if (s.text !== b.text) notes.push(`GET /clients/${id}: bodies differ\n  service : ${s.text}\n  baseline: ${b.text}`)
  }
  const sl = await call(service, apiKey, "GET", "/api/v1/clients?pageSize=25")
  const bl = await call(baseline, apiKey, "GET", "/api/v1/clients?pageSize=25")
  if (sl.text !== bl.text) notes.push("GET /clients?pageSize=25: bodies differ")
  const s = await checkTarget(service, apiKey, clientIds[0]!)
  const b = await checkTarget(baseline, apiKey, clientIds[0]!)
  const sKeys = Object.keys(s.created.body).join(",")
  const bKeys = Object.keys(b.created.body).join(",")
  if (sKeys !== bKeys) notes.push(`POST /clients: fields differ\n  service : ${sKeys}\n  baseline: ${bKeys}`)
  const missing = HEADERS_OF_INTEREST.filter((h) => !s.got.headers.has(h))
  if (missing.length > 0) notes.push(`the service does not send ${missing.join(", ")} (the baseline does)`)
  return notes
}

// ---------------------------------------------------------------------------------------------
// Load: autocannon in a child process of its own (load.mjs).

interface RunSummary {
  readonly requestsPerSec: number
  readonly requestsTotal: number
  readonly durationSeconds: number
  readonly latencyMs: { readonly p50: number; readonly p90: number; readonly p99: number; readonly mean: number; readonly max: number }
  readonly throughputBytesPerSec: number
  readonly statusCodes: Record<string, number>
  readonly non2xx: number
  readonly errors: number
  readonly timeouts: number
  readonly resets: number
}

interface Measured extends RunSummary {
  /** The server's CPU time per request over the warm-up and the measured run, in microseconds. */
  readonly cpuMicrosPerRequest: number | undefined
  readonly target: Target["name"]
  readonly round: number
  readonly valid: boolean
  readonly problems: ReadonlyArray<string>
  readonly warmup: RunSummary | null
}

const runLoad = (target: Target, scenario: Scenario, apiKey: string, idsFile: string) =>
  new Promise<{ warmup: RunSummary | null; measured: RunSummary }>((resolve, reject) => {
    const config = {
      url: target.url,
      apiKey,
      scenario: scenario.name,
      connections: CONNECTIONS,
      warmupSeconds: WARMUP_SECONDS,
      seconds: SECONDS,
      idsFile
    }
    const child = spawn(process.execPath, [path.join(HERE, "load.mjs"), JSON.stringify(config)], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"]
    })
    children.push(child)
    let out = ""
    let err = ""
    child.stdout.on("data", (c: Buffer) => (out += c.toString("utf8")))
    child.stderr.on("data", (c: Buffer) => (err += c.toString("utf8")))
    child.once("exit", (code, signal) => {
      children.splice(children.indexOf(child), 1)
      if (code !== 0) return reject(new Error(`load generator exited (${code ?? signal}): ${err}`))
      try {
        resolve(JSON.parse(out.trim().split("\n").pop()!))
      } catch (error) {
        reject(new Error(`load generator printed no result: ${out}\n${err}`))
      }
    })
  })

const problemsOf = (run: RunSummary, expectedStatus: number): Array<string> => {
  const problems: Array<string> = []
  for (const [code, count] of Object.entries(run.statusCodes)) {
    if (Number(code) !== expectedStatus) problems.push(`${count} responses with status ${code}`)
  }
  if (run.non2xx > 0) problems.push(`${run.non2xx} non-2xx responses`)
  if (run.errors > 0) problems.push(`${run.errors} errors`)
  if (run.timeouts > 0) problems.push(`${run.timeouts} timeouts`)
  if ((run.statusCodes[String(expectedStatus)] ?? 0) === 0) problems.push(`no response with status ${expectedStatus}`)
  return problems
}

// ---------------------------------------------------------------------------------------------
// Report

const fmt = (n: number, digits = 0) => n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits })
const ms = (n: number) => (n < 10 ? n.toFixed(2) : n.toFixed(1))
const cpu = (n: number | undefined) => (n === undefined ? "?" : n.toFixed(0))

const table = (header: Array<string>, rows: Array<Array<string>>) => {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  const line = (cells: Array<string>) => "| " + cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(" | ") + " |"
  const rule = "|" + widths.map((w, i) => (i === 0 ? "-".repeat(w + 1) + "-" : "-".repeat(w + 1) + ":")).join("|") + "|"
  return [line(header), rule, ...rows.map(line)].join("\n")
}

const machineInfo = async () => {
  const [{ server_version }] = await adminQuery<{ server_version: string }>(ADMIN_URL, "SHOW server_version")
  const cpus = os.cpus()
  return {
    cpu: cpus[0]?.model.trim() ?? "unknown",
    cores: cpus.length,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    postgres: server_version,
    date: new Date().toISOString(),
    loadAverageAtStart: os.loadavg().map((x) => Math.round(x * 100) / 100)
  }
}

// ---------------------------------------------------------------------------------------------

const main = async () => {
  const machine = await machineInfo()
  log(`${SCENARIOS.length} scenarios x ${ROUNDS} rounds x 2 servers, ${WARMUP_SECONDS}s warm-up + ${SECONDS}s each, ${CONNECTIONS} connections`)
  const db = await prepareDatabase()
  const idsFile = path.join(os.tmpdir(), `${dbName}-ids.json`)
  writeFileSync(idsFile, JSON.stringify(db.clientIds))
  tempFiles.push(idsFile)

  const [service, baseline] = await Promise.all([
    startServer("service", process.execPath, SERVICE_ARGS, serverEnv()),
    startServer("baseline", process.execPath, [path.join(HERE, "baseline.mjs")], serverEnv())
  ])
  log(`service on ${service.url}, baseline on ${baseline.url}`)

  const notes = await checkBoth(baseline, service, db.apiKey, db.clientIds)
  log("checks passed: both servers answer every route with the expected status and the client's id")
  for (const note of notes) log(`NOTE: ${note}`)

  const results: Array<{ scenario: Scenario; runs: Array<Measured> }> = []
  for (const scenario of SCENARIOS) {
    const runs: Array<Measured> = []
    for (let round = 1; round <= ROUNDS; round++) {
      for (const target of [baseline, service]) {
        const cpuBefore = cpuMicros(target.pid)
        const { warmup, measured } = await runLoad(target, scenario, db.apiKey, idsFile)
        const cpuAfter = cpuMicros(target.pid)
        const requests = measured.requestsTotal + (warmup?.requestsTotal ?? 0)
        const cpuMicrosPerRequest = cpuBefore === undefined || cpuAfter === undefined || requests === 0 ? undefined : (cpuAfter - cpuBefore) / requests
        const problems = problemsOf(measured, scenario.expectedStatus)
        runs.push({ ...measured, cpuMicrosPerRequest, target: target.name, round, valid: problems.length === 0, problems, warmup })
        log(
          `${scenario.name} round ${round} ${target.name.padEnd(8)}: ${fmt(measured.requestsPerSec)} req/s, ${cpu(cpuMicrosPerRequest)} µs CPU/req, p50 ${ms(measured.latencyMs.p50)} ms, p99 ${
            ms(measured.latencyMs.p99)
          } ms${problems.length > 0 ? `  INVALID: ${problems.join("; ")}` : ""}`
        )
      }
    }
    results.push({ scenario, runs })
  }

  const best = (runs: Array<Measured>, target: Target["name"]) =>
    runs.filter((r) => r.target === target).reduce((a, b) => (b.requestsPerSec > a.requestsPerSec ? b : a))

  const rows = results.map(({ scenario, runs }) => {
    const b = best(runs, "baseline")
    const s = best(runs, "service")
    const invalid = runs.some((r) => !r.valid)
    return {
      scenario: scenario.label,
      baseline: b,
      service: s,
      ratio: s.requestsPerSec / b.requestsPerSec,
      invalid,
      cells: [
        scenario.label + (invalid ? " (INVALID)" : ""),
        fmt(b.requestsPerSec),
        fmt(s.requestsPerSec),
        fmt(s.requestsPerSec / b.requestsPerSec, 2),
        cpu(b.cpuMicrosPerRequest),
        cpu(s.cpuMicrosPerRequest),
        `${ms(b.latencyMs.p50)} / ${ms(b.latencyMs.p99)}`,
        `${ms(s.latencyMs.p50)} / ${ms(s.latencyMs.p99)}`
      ]
    }
  })

  const printed = [
    "",
    table(
      ["scenario", "baseline req/s", "service req/s", "service/baseline", "baseline µs CPU/req", "service µs CPU/req", "baseline p50/p99 ms", "service p50/p99 ms"],
      rows.map((r) => r.cells)
    ),
    "",
    `Best of ${ROUNDS} alternating rounds per server (highest req/s; its latency). ${CONNECTIONS} connections, ${WARMUP_SECONDS}s warm-up + ${SECONDS}s measured per run.`,
    `GET by id rotates over the ${SEED_CLIENTS} seeded client ids; POST sends a fresh Idempotency-Key per request.`,
    `Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, ${machine.os}; Node ${machine.node}; PostgreSQL ${machine.postgres}; ${machine.date}`,
    `Load generator, both servers and PostgreSQL share these cores. Load average at start ${machine.loadAverageAtStart.join(" ")}, at end ${
      os.loadavg().map((x) => x.toFixed(2)).join(" ")
    } (other work on the machine skews the numbers).`
  ]
  const invalidRuns = results.flatMap(({ scenario, runs }) => runs.filter((r) => !r.valid).map((r) => ({ scenario: scenario.name, ...r })))
  if (invalidRuns.length > 0) {
    printed.push(
      "",
      "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!",
      `!!! INVALID: ${invalidRuns.length} measured run(s) got responses other than the expected status:`,
      ...invalidRuns.map((r) => `!!!   ${r.scenario} round ${r.round} ${r.target}: ${r.problems.join("; ")}`),
      "!!! Their numbers do not measure the intended work.",
      "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!"
    )
  }
  for (const note of notes) printed.push(`NOTE: ${note}`)

  const outDir = path.join(os.tmpdir(), "bizops-bench")
  mkdirSync(outDir, { recursive: true })
  const outFile = path.join(outDir, "latest.json")
  writeFileSync(
    outFile,
    JSON.stringify(
      {
        machine,
        settings: { seconds: SECONDS, warmupSeconds: WARMUP_SECONDS, rounds: ROUNDS, connections: CONNECTIONS, seededClients: SEED_CLIENTS, pick: "best round by req/s" },
        notes,
        valid: invalidRuns.length === 0,
        scenarios: rows.map((r) => ({
          scenario: r.scenario,
          invalid: r.invalid,
          ratioServiceToBaseline: r.ratio,
          baseline: { requestsPerSec: r.baseline.requestsPerSec, cpuMicrosPerRequest: r.baseline.cpuMicrosPerRequest, latencyMs: r.baseline.latencyMs, round: r.baseline.round },
          service: { requestsPerSec: r.service.requestsPerSec, cpuMicrosPerRequest: r.service.cpuMicrosPerRequest, latencyMs: r.service.latencyMs, round: r.service.round }
        })),
        runs: results.flatMap(({ scenario, runs }) => runs.map((r) => ({ scenario: scenario.name, ...r })))
      },
      null,
      2
    ) + "\n"
  )
  printed.push("", `Results as JSON: ${outFile}`)
  process.stdout.write(printed.join("\n") + "\n")
  return invalidRuns.length === 0 ? 0 : 1
}

// ---------------------------------------------------------------------------------------------
// `npm run bench -- webhooks`: delivery throughput to a fast local receiver, another organization's first
// delivery while one organization's backlog drains, and while another's receivers hang. Every receiver is
// on loopback; every loop is bounded in count and time.

const WEBHOOK_SUBSCRIPTIONS = intEnv("BENCH_WEBHOOK_SUBSCRIPTIONS", 20)
const WEBHOOK_CLIENTS = intEnv("BENCH_WEBHOOK_CLIENTS", 400)
const WEBHOOK_PINGS = intEnv("BENCH_WEBHOOK_PINGS", 5)
const WEBHOOK_IDLE_ORGANIZATIONS = intEnv("BENCH_WEBHOOK_IDLE_ORGANIZATIONS", 2000)
const WEBHOOK_HANG_CLIENTS = intEnv("BENCH_WEBHOOK_HANG_CLIENTS", 20)

interface Receiver {
  readonly url: string
  /** When each organization's deliveries of each type arrived (`organizationId:type`), in ms. */
  readonly arrivals: Map<string, Array<number>>
  readonly close: () => void
}

/** The two fields of a delivery's body the receiver files it under. */
const deliveryKey = (text: string) => {
  const body: unknown = JSON.parse(text)
  if (typeof body !== "object" || body === null || !("organizationId" in body) || !("type" in body)) return "unknown"
  return `${String(body.organizationId)}:${String(body.type)}`
}

/**
 * A receiver on loopback that notes when each organization's deliveries arrive: it answers 200 at once,
 * except on `/hang`, where it never answers (the worker gives up after its 15 s timeout).
 */
const startReceiver = () =>
  new Promise<Receiver>((resolve) => {
    const arrivals = new Map<string, Array<number>>()
    const server = createHttpServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (c: Buffer) => chunks.push(c))
      req.on("end", () => {
        const key = deliveryKey(Buffer.concat(chunks).toString("utf8"))
        const list = arrivals.get(key) ?? []
        list.push(performance.now())
        arrivals.set(key, list)
        if (req.url !== "/hang") res.writeHead(200).end("ok")
      })
    })
    server.keepAliveTimeout = 60_000
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      resolve({
        url: `http://127.0.0.1:${port}`,
        arrivals,
        close: () => {
          server.close()
          server.closeAllConnections()
        }
      })
    })
  })

/** Runs the operator command line on the bench database; one string field of the JSON it prints. */
const admin = async (args: ReadonlyArray<string>, field: string) => {
  const run = await runTsx(path.join(ROOT, "scripts/admin.ts"), args, { DATABASE_URL: benchUrl })
  if (run.code !== 0) throw new Error(`admin ${args.join(" ")} exited ${run.code}`)
  const printed = lastJson(run.out)
  const value = typeof printed === "object" && printed !== null && field in printed ? Reflect.get(printed, field) : undefined
  if (typeof value === "string") return value
  throw new Error(`admin ${args.join(" ")} printed no ${field}: ${run.out}`)
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** An organization with a key for clients and webhooks. */
const benchOrganization = async (name: string) => {
  const organizationId = await admin(["org", "create", "--name", name], "organizationId")
  const apiKey = await admin(["key", "create", "--org", organizationId, "--scopes", "clients:write webhooks:read webhooks:write", "--rate-limit", "1000000000"], "apiKey")
  return { organizationId, apiKey }
}

const subscribeAll = async (service: Target, apiKey: string, url: string, count: number, what: string) => {
  const ids: Array<string> = []
  for (let i = 0; i < count; i++) {
    const created = await call(service, apiKey, "POST", "/api/v1/webhooks", { url, events: ["client_created"] })
    expect(what, created.status === 201 && typeof created.body?.id === "string", created.text)
    ids.push(created.body.id)
  }
  return ids
}

const createClients = async (service: Target, apiKey: string, count: number, what: string) => {
  let next = 0
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (next < count) {
      const i = next++
      const created = await call(service, apiKey, "POST", "/api/v1/clients", { name: `${what} ${i}` })
      expect(what, created.status === 201, created.text)
    }
  }))
}

/** B's test pings, one after another, each timed from its request to its arrival (at most 30 s each). */
const timePings = async (service: Target, receiver: Receiver, b: { readonly organizationId: string; readonly apiKey: string }, hookId: string, during: () => string) => {
  const latencies: Array<number> = []
  const context: Array<string> = []
  const arrived = () => receiver.arrivals.get(`${b.organizationId}:ping`)?.length ?? 0
  for (let i = 0; i < WEBHOOK_PINGS; i++) {
    const before = arrived()
    context.push(during())
    const sent = performance.now()
    const res = await call(service, b.apiKey, "POST", `/api/v1/webhooks/${hookId}/test`)
    expect("B's ping", res.status === 202, res.text)
    const deadline = sent + 30_000
    while (arrived() <= before && performance.now() < deadline) await sleep(2)
    latencies.push(arrived() > before ? performance.now() - sent : Number.POSITIVE_INFINITY)
    await sleep(500)
  }
  return { latencies, context }
}

const webhooksMain = async () => {
  const machine = await machineInfo()
  const db = await prepareDatabase()
  // Many other organizations with subscriptions and nothing to deliver, as on a shared service: the claim
  // must not cost more with each of them.
  const idle = await adminQuery<{ n: number }>(benchUrl, `
    WITH o AS (
      INSERT INTO organizations (id, name) SELECT gen_random_uuid(), 'Idle ' || i FROM generate_series(1, $1::int) i RETURNING id
    ), w AS (
      INSERT INTO webhooks (id, organization_id, url, events)
      SELECT gen_random_uuid(), o.id, 'http://127.0.0.1:9/idle', ARRAY['*'] FROM o CROSS JOIN generate_series(1, 5)
      RETURNING 1
    ) SELECT count(*)::int AS n FROM w`, [WEBHOOK_IDLE_ORGANIZATIONS])
  await adminQuery(benchUrl, "ANALYZE")
  log(`${fmt(WEBHOOK_IDLE_ORGANIZATIONS)} idle organizations with ${fmt(idle[0]?.n ?? 0)} subscriptions`)
  const receiver = await startReceiver()
  const service = await startServer("service", process.execPath, SERVICE_ARGS, { ...serverEnv(), WEBHOOKS_ALLOW_INSECURE: "1" })
  log(`service on ${service.url}, receiver on ${receiver.url}`)
  // Organization B: one subscription, for the pings.
  const b = await benchOrganization("Bench B")
  const [bHook] = await subscribeAll(service, b.apiKey, `${receiver.url}/hook`, 1, "B's subscription")
  // Phase 1: organization A's backlog to a fast receiver.
  await subscribeAll(service, db.apiKey, `${receiver.url}/hook`, WEBHOOK_SUBSCRIPTIONS, "A's subscription")
  const expected = WEBHOOK_CLIENTS * WEBHOOK_SUBSCRIPTIONS
  log(`organization A: ${WEBHOOK_SUBSCRIPTIONS} subscriptions; creating ${WEBHOOK_CLIENTS} clients = ${fmt(expected)} deliveries`)
  const aKey = `${db.organizationId}:client_created`
  const delivered = () => receiver.arrivals.get(aKey)?.length ?? 0
  const floodStart = performance.now()
  await createClients(service, db.apiKey, WEBHOOK_CLIENTS, "Flood")
  const floodEnd = performance.now()
  const deliveredAtFloodEnd = delivered()
  log(`clients created in ${((floodEnd - floodStart) / 1000).toFixed(1)} s`)
  const drainPings = await timePings(service, receiver, b, bHook!, () => fmt(expected - delivered()))
  const deadline = performance.now() + 600_000
  while (delivered() < expected && performance.now() < deadline) await sleep(20)
  const times = receiver.arrivals.get(aKey) ?? []
  const last = times.at(-1) ?? floodEnd
  const total = times.length / ((last - floodStart) / 1000)
  const afterFlood = (times.length - deliveredAtFloodEnd) / ((last - floodEnd) / 1000)
  // Phase 2: organization C's receivers never answer.
  const c = await benchOrganization("Bench C")
  await subscribeAll(service, c.apiKey, `${receiver.url}/hang`, WEBHOOK_SUBSCRIPTIONS, "C's subscription")
  const cKey = `${c.organizationId}:client_created`
  const hanging = () => receiver.arrivals.get(cKey)?.length ?? 0
  const hangStart = performance.now()
  await createClients(service, c.apiKey, WEBHOOK_HANG_CLIENTS, "Hang")
  while (hanging() < Math.min(32, WEBHOOK_HANG_CLIENTS * WEBHOOK_SUBSCRIPTIONS) && performance.now() < hangStart + 10_000) await sleep(20)
  await sleep(500)
  const hangPings = await timePings(service, receiver, b, bHook!, () => fmt(hanging()))
  receiver.close()
  const fmtLatencies = (l: ReadonlyArray<number>) =>
    `${l.map((x) => (Number.isFinite(x) ? `${x.toFixed(0)} ms` : "none in 30 s")).join(", ")} (max ${Math.max(...l).toFixed(0)} ms)`
  const printed = [
    "",
    `Webhook delivery, ${machine.date}, ${machine.cpu} (${machine.cores} cores, ${machine.memoryGiB} GiB), Node ${machine.node}, PostgreSQL ${machine.postgres}`,
    `${fmt(WEBHOOK_IDLE_ORGANIZATIONS)} other organizations with ${fmt(idle[0]?.n ?? 0)} subscriptions and nothing due`,
    `organization A: ${WEBHOOK_SUBSCRIPTIONS} subscriptions x ${WEBHOOK_CLIENTS} clients = ${fmt(expected)} deliveries (200 at once); received ${fmt(times.length)}`,
    `  from the first client created to the last delivery: ${((last - floodStart) / 1000).toFixed(1)} s = ${fmt(total)} deliveries/s`,
    `  after the last client was created (${fmt(deliveredAtFloodEnd)} delivered by then, ${((floodEnd - floodStart) / 1000).toFixed(1)} s): ${fmt(afterFlood)} deliveries/s`,
    `organization B: ${WEBHOOK_PINGS} test pings while A's backlog was ${drainPings.context.join(", ")} deliveries`,
    `  request to arrival: ${fmtLatencies(drainPings.latencies)}`,
    `organization C: ${WEBHOOK_SUBSCRIPTIONS} subscriptions to a receiver that never answers, ${WEBHOOK_HANG_CLIENTS} clients = ${fmt(WEBHOOK_HANG_CLIENTS * WEBHOOK_SUBSCRIPTIONS)} deliveries`,
    `organization B: ${WEBHOOK_PINGS} test pings while ${hangPings.context.join(", ")} of C's attempts had reached the receiver`,
    `  request to arrival: ${fmtLatencies(hangPings.latencies)}`
  ]
  process.stdout.write(printed.join("\n") + "\n")
  const pingsArrived = [...drainPings.latencies, ...hangPings.latencies].every(Number.isFinite)
  return times.length === expected && pingsArrived ? 0 : 1
}

// ---------------------------------------------------------------------------------------------
// `npm run bench -- imports`: the operator import of a file of sales (and one of payouts) through the real
// command line, timed from the command's start to its exit (Node and tsx starting, migrations checked, the
// file read and validated, one transaction, the events written): the issue's budget is 10 s for 5,000 sales.

const IMPORT_SALES = intEnv("BENCH_IMPORT_SALES", 5000)
const IMPORT_BUDGET_SECONDS = 10

/** `count` sales of every channel, tax included and on top, some discounted, 1 to 3 lines; `count` payouts. */
const importFiles = (count: number) => {
  const channels = ["pos", "manual", "processor", "storefront", "marketplace", "processor-import"]
  const methods = ["cash", "processor", "check", "bank_transfer"]
  const sales = Array.from({ length: count }, (_, i) => ({
    externalId: `bench-sale-${i}`,
    channel: channels[i % channels.length],
    saleDate: `2027-0${1 + (i % 9)}-${String(1 + (i % 28)).padStart(2, "0")}`,
    taxInclusive: i % 2 === 0,
    taxRate: [0, 8.875, 20][i % 3],
    ...(i % 5 === 0 ? { discountPercent: 10 } : {}),
    lineItems: Array.from({ length: 1 + (i % 3) }, (_, j) => ({ description: `Item ${j}`, quantity: 1 + j, unitPrice: (999 + (i % 100) * 100) / 100 })),
    payment: { method: methods[i % methods.length] },
    ...(i % 4 === 0 ? { notes: `Sale ${i}` } : {})
  }))
  const payouts = Array.from({ length: count }, (_, i) => ({
    processorPayoutId: `bench-po-${i}`,
    amount: 95,
    status: i % 10 === 0 ? "in_transit" : "paid",
    type: "bank_account",
    automatic: true,
    arrivalDate: "2027-04-25",
    ...(i % 10 === 0 ? {} : { grossTotal: 100, feeTotal: 3, refundTotal: 1, disputeTotal: 1, paymentCount: 2, lastReconciledAt: "2027-04-26T08:00:00Z" })
  }))
  return { sales, payouts }
}

/** Runs `import KIND` on a file; the seconds from spawn to exit and what it printed. */
const timedImport = async (kind: string, organizationId: string, file: string) => {
  const run = await runTsx(path.join(ROOT, "scripts/admin.ts"), ["import", kind, "--org", organizationId, "--file", file], { DATABASE_URL: benchUrl })
  if (run.code !== 0) throw new Error(`import ${kind} exited ${run.code}: ${run.err.slice(0, 2000)}`)
  return { seconds: run.seconds, printed: Schema.decodeUnknownSync(ImportCounts)(lastJson(run.out)) }
}

const importsMain = async () => {
  const machine = await machineInfo()
  const db = await prepareDatabase()
  // A subscription to every event: each created record writes its events and their deliveries, the costly case.
  await adminQuery(benchUrl, `INSERT INTO webhooks (id, organization_id, url, events) VALUES (gen_random_uuid(), $1, 'http://127.0.0.1:9/none', ARRAY['*'])`, [db.organizationId])
  const files = importFiles(IMPORT_SALES)
  const dir = path.join(os.tmpdir(), "bizops-bench")
  mkdirSync(dir, { recursive: true })
  const salesFile = path.join(dir, `sales-${dbName}.json`)
  const payoutsFile = path.join(dir, `payouts-${dbName}.json`)
  writeFileSync(salesFile, JSON.stringify(files.sales))
  writeFileSync(payoutsFile, JSON.stringify(files.payouts))
  tempFiles.push(salesFile, payoutsFile)
  const noop = await timedImport("sales", db.organizationId, path.join(ROOT, "examples/sales.json"))
  log(`a 2-sale import (the command's fixed cost) took ${noop.seconds.toFixed(2)} s`)
  const first = await timedImport("sales", db.organizationId, salesFile)
  const again = await timedImport("sales", db.organizationId, salesFile)
  const payouts = await timedImport("payouts", db.organizationId, payoutsFile)
  const [events] = await adminQuery<{ n: number }>(benchUrl, "SELECT count(*)::int AS n FROM webhook_events")
  const line = (what: string, run: { seconds: number; printed: { created: number; updated: number; unchanged: number } }) =>
    `  ${what}: ${run.seconds.toFixed(2)} s (created ${fmt(run.printed.created)}, updated ${fmt(run.printed.updated)}, unchanged ${fmt(run.printed.unchanged)})`
  process.stdout.write([
    "",
    `Operator imports, ${machine.date}, ${machine.cpu} (${machine.cores} cores, ${machine.memoryGiB} GiB), Node ${machine.node}, PostgreSQL ${machine.postgres}`,
    `npm run admin -- import, timed from the command's start to its exit; one subscription to every event`,
    line("2 sales (examples/sales.json: the fixed cost of starting)", noop),
    line(`${fmt(IMPORT_SALES)} sales, new`, first),
    line(`${fmt(IMPORT_SALES)} sales, the same file again`, again),
    line(`${fmt(IMPORT_SALES)} payouts, new`, payouts),
    `  events written: ${fmt(events?.n ?? 0)}`,
    `  budget: ${fmt(IMPORT_SALES)} new sales in under ${IMPORT_BUDGET_SECONDS} s: ${first.seconds < IMPORT_BUDGET_SECONDS ? "met" : "MISSED"}`
  ].join("\n") + "\n")
  return first.printed.created === IMPORT_SALES && again.printed.unchanged === IMPORT_SALES && first.seconds < IMPORT_BUDGET_SECONDS ? 0 : 1
}

const mains: Record<string, () => Promise<number>> = { webhooks: webhooksMain, imports: importsMain }

;(mains[process.argv[2] ?? ""] ?? main)().then(
  async (code) => {
    await cleanup()
    process.exit(code)
  },
  async (error) => {
    if (interrupted) return // the signal handler cleans up and exits
    process.stderr.write(`[bench] FAILED: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`)
    await cleanup()
    process.exit(1)
  }
)
