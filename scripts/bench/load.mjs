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
      // The path goes in the url: autocannon takes the path of `url` over a `path` option.
      return { ...base, url: `${config.url}/api/v1/clients?pageSize=25`, method: "GET" }
    case "create":
      // idReplacement puts a fresh random id (hyperid) wherever [<id>] appears in the request,
      // headers included: a new Idempotency-Key per request.
      return {
        ...base,
        url: `${config.url}/api/v1/clients`,
        method: "POST",
        idReplacement: true,
        headers: { ...base.headers, "content-type": "application/json", "idempotency-key": "bench-[<id>]" },
        body: JSON.stringify({ name: "Bench client" })
      }
    default:
      throw new Error(`unknown scenario ${scenario}`)
  }
}

/**
 * One autocannon run. Latencies are also kept here, as floats: autocannon's histogram holds whole
 * milliseconds, too coarse for sub-millisecond answers.
 */
const run = (seconds) =>
  new Promise((resolve, reject) => {
    let latencies = new Float64Array(1 << 16)
    let n = 0
    const instance = autocannon({ ...optionsFor(config.scenario), duration: seconds }, (error, result) =>
      error ? reject(error) : resolve({ result, latencies: latencies.subarray(0, n) }))
    instance.on("response", (_client, _status, _bytes, responseTime) => {
      if (n === latencies.length) {
        const bigger = new Float64Array(latencies.length * 2)
        bigger.set(latencies)
        latencies = bigger
      }
      latencies[n++] = responseTime
    })
    process.once("SIGTERM", () => instance.stop())
  })

const percentile = (sorted, p) => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)])
const round3 = (x) => Math.round(x * 1000) / 1000

const summary = ({ result: r, latencies }) => {
  const sorted = latencies.slice().sort()
  let sum = 0
  for (const x of sorted) sum += x
  return {
  requestsPerSec: r.requests.average,
  requestsTotal: r.requests.total,
  durationSeconds: r.duration,
  latencyMs: {
    p50: round3(percentile(sorted, 50)),
    p90: round3(percentile(sorted, 90)),
    p99: round3(percentile(sorted, 99)),
    mean: round3(sum / Math.max(1, sorted.length)),
    max: round3(sorted[sorted.length - 1] ?? NaN)
  },
  throughputBytesPerSec: r.throughput.average,
  statusCodes: Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([code, s]) => [code, s.count])),
  non2xx: r.non2xx,
  errors: r.errors,
  timeouts: r.timeouts,
  resets: r.resets
  }
}

const warmup = config.warmupSeconds > 0 ? summary(await run(config.warmupSeconds)) : null
const measured = summary(await run(config.seconds))
process.stdout.write(JSON.stringify({ warmup, measured }) + "\n")
