// The load generator of `npm run bench`, run by run.ts as a child process of its own, so that
// autocannon never shares an event loop with the server it measures.
//
//   node scripts/bench/load.mjs '<json config>'
//
// config: { url, apiKey, scenario: "get" | "list" | "create", connections, warmupSeconds, seconds, idsFile? }
// It runs a warm-up (result dropped), then the measured run, and prints ONE line of JSON on stdout:
// { warmup: summary | null, measured: summary }.
import autocannon from "autocannon"
import { readFileSync } from "node:fs"

const config = JSON.parse(process.argv[2])

/** autocannon options for one scenario. Requests are prebuilt buffers wherever possible. */
const optionsFor = (scenario) => {
  const base = {
    url: config.url,
    connections: config.connections,
    headers: { "x-api-key": config.apiKey }
  }
  switch (scenario) {
    case "get": {
      // Every connection walks the seeded ids in order; the 1000 requests are built once.
      const ids = JSON.parse(readFileSync(config.idsFile, "utf8"))
      return { ...base, requests: ids.map((id) => ({ method: "GET", path: `/api/v1/clients/${id}` })) }
    }
    case "list":
      return { ...base, method: "GET", path: "/api/v1/clients?pageSize=25" }
    case "create":
      // idReplacement puts a fresh random id (hyperid) wherever [<id>] appears in the request,
      // headers included: a new Idempotency-Key per request.
      return {
        ...base,
        method: "POST",
        path: "/api/v1/clients",
        idReplacement: true,
        headers: { ...base.headers, "content-type": "application/json", "idempotency-key": "bench-[<id>]" },
        body: JSON.stringify({ name: "Bench client" })
      }
    default:
      throw new Error(`unknown scenario ${scenario}`)
  }
}

const run = (seconds) =>
  new Promise((resolve, reject) => {
    const instance = autocannon({ ...optionsFor(config.scenario), duration: seconds }, (error, result) =>
      error ? reject(error) : resolve(result))
    process.once("SIGTERM", () => instance.stop())
  })

const summary = (r) => ({
  requestsPerSec: r.requests.average,
  requestsTotal: r.requests.total,
  durationSeconds: r.duration,
  latencyMs: { p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, mean: r.latency.average, max: r.latency.max },
  throughputBytesPerSec: r.throughput.average,
  statusCodes: Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([code, s]) => [code, s.count])),
  non2xx: r.non2xx,
  errors: r.errors,
  timeouts: r.timeouts,
  resets: r.resets
})

const warmup = config.warmupSeconds > 0 ? summary(await run(config.warmupSeconds)) : null
const measured = summary(await run(config.seconds))
process.stdout.write(JSON.stringify({ warmup, measured }) + "\n")
