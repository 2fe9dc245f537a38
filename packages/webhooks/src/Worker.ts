import { Clock, Duration, Effect, Layer, Option, Queue } from "effect"
import { SqlClient } from "effect/sql"
import { lookup } from "node:dns"
import { request as httpRequest } from "node:http"
import { request as httpsRequest } from "node:https"
import type { LookupFunction } from "node:net"
import { isForbiddenAddress, literalAddress } from "./Addresses.js"
import { DELIVERY_TIMEOUT, isSuccessStatus, nextAttemptDelay, shouldDisableSubscription } from "./Retry.js"
import { deliveryHeaders } from "./Signing.js"

export interface WorkerOptions {
  /** Targets may be http on loopback and private addresses are not refused (development, tests). */
  readonly allowInsecure: boolean
}

/** How much of a receiver's answer an attempt keeps. */
const RESPONSE_BODY_LIMIT = 2048
/** Deliveries in flight at once on one instance. */
export const MAX_IN_FLIGHT = 64
/** Deliveries of one subscription in flight at once, across every instance. */
export const MAX_IN_FLIGHT_PER_SUBSCRIPTION = 8
/**
 * Deliveries of one organization in flight at once on one instance: half its slots, so that receivers
 * that hang (up to the 15 s timeout) in one organization leave the other half to the others.
 */
export const MAX_IN_FLIGHT_PER_ORGANIZATION = 32
/** How long a worker with nothing to claim waits before it looks again. */
const IDLE_MS = 1000
const DELIVERY_TIMEOUT_MS = Duration.toMillis(DELIVERY_TIMEOUT)
const LEASE_MS = DELIVERY_TIMEOUT_MS + 45_000

interface Claimed {
  readonly id: string
  readonly organizationId: string
  readonly webhookId: string
  readonly attemptCount: number
  readonly url: string
  readonly secret: string | null
  readonly enabled: boolean
  readonly failingSince: Date | null
  readonly eventId: string
  readonly body: string
}

interface Outcome {
  readonly statusCode: number | null
  readonly responseBody: string | null
  readonly error: string | null
  readonly durationMs: number
}

/**
 * A DNS lookup that refuses private, loopback, link-local and metadata addresses (SSRF), unless
 * insecure targets are allowed. It is the lookup of the connection itself, so the address checked is
 * the address connected to (no rebinding between a check and the request).
 */
const guardedLookup = (allowInsecure: boolean): LookupFunction => (hostname, options, callback) =>
  lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, "", 0)
    const list = Array.isArray(addresses) ? addresses : []
    const refused = list.find((a) => isForbiddenAddress(a.address))
    if (!allowInsecure && refused !== undefined) {
      return callback(new Error(`refused: ${hostname} resolves to a private or reserved address`), "", 0)
    }
    if (options.all === true) return callback(null, list)
    const first = list[0]
    return first === undefined ? callback(new Error(`no address for ${hostname}`), "", 0) : callback(null, first.address, first.family)
  })

/** One POST of the event body; no redirects are followed; 15 s without an answer is a failure. */
const post = (url: string, headers: Record<string, string>, body: string, allowInsecure: boolean) =>
  Effect.callback<Outcome>((resume) => {
    const started = Date.now()
    const target = new URL(url)
    // Node does not call `lookup` for an address written in the URL: check that one here.
    const literal = literalAddress(target.hostname)
    if (!allowInsecure && literal !== undefined && isForbiddenAddress(literal)) {
      return resume(Effect.succeed({ statusCode: null, responseBody: null, error: `refused: ${literal} is a private or reserved address`, durationMs: 0 }))
    }
    const send = target.protocol === "https:" ? httpsRequest : httpRequest
    let done = false
    const finish = (outcome: Omit<Outcome, "durationMs">) => {
      if (done) return
      done = true
      resume(Effect.succeed({ ...outcome, durationMs: Date.now() - started }))
    }
    const req = send(target, {
      method: "POST",
      headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
      lookup: guardedLookup(allowInsecure),
      timeout: DELIVERY_TIMEOUT_MS
    }, (res) => {
      const chunks: Array<Buffer> = []
      let size = 0
      res.on("data", (chunk: Buffer) => {
        if (size < RESPONSE_BODY_LIMIT) chunks.push(chunk)
        size += chunk.length
      })
      res.on("end", () =>
        finish({
          statusCode: res.statusCode ?? null,
          responseBody: Buffer.concat(chunks).subarray(0, RESPONSE_BODY_LIMIT).toString("utf8"),
          error: null
        }))
      res.on("error", (e) => finish({ statusCode: res.statusCode ?? null, responseBody: null, error: e.message }))
    })
    req.on("timeout", () => {
      req.destroy(new Error(`no answer in ${DELIVERY_TIMEOUT_MS / 1000} s`))
    })
    req.on("error", (e) => finish({ statusCode: null, responseBody: null, error: e.message }))
    req.end(body)
    return Effect.sync(() => req.destroy())
  })

/**
 * The delivery worker: every instance runs one. It claims due deliveries with FOR UPDATE SKIP LOCKED
 * (a lease: the claim sets leased_until past the attempt's timeout, so a worker that dies mid-delivery
 * leaves the delivery to be sent again when the lease ends, at least once, never lost), sends them,
 * records each attempt, and schedules retries per the contract (5 s, 5 min, 30 min, 2 h, 5 h, 10 h,
 * 10 h, then failed). A subscription failing for 5 days in a row is disabled.
 */
export const makeWorker = (options: WorkerOptions) => Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  /** The outbox tables' statements, with $n parameters; rows camelCased by the client. */
  const rows = <Row extends object>(text: string, values: ReadonlyArray<unknown>) => sql.unsafe<Row>(text, values)

  /**
   * Claims up to `limit` due deliveries, fairly, and leases them (`leased_until`, a lease that expires if
   * the worker dies). `busy` is what this instance already has in flight, per organization.
   *
   * - Only subscriptions with pending deliveries are visited (a skip scan of the due index, one probe
   *   each), not every subscription of every organization.
   * - Each subscription offers its oldest due deliveries, up to what it may still have in flight
   *   (MAX_IN_FLIGHT_PER_SUBSCRIPTION less its leases on every instance).
   * - An organization's offers are interleaved across its subscriptions (round-robin), and each gets a
   *   level: what the organization has in flight here, plus its place in that order. The lowest levels
   *   are taken first (the oldest first among equals), and none above MAX_IN_FLIGHT_PER_ORGANIZATION.
   *   So a free slot goes to the organization with the least in flight here: another organization's
   *   first delivery goes ahead of a backlog, and a backlog never holds all of this instance's slots.
   */
  const claim = (now: Date, limit: number, busy: ReadonlyMap<string, number>) =>
    rows<Claimed>(
      `WITH RECURSIVE active AS (
         (SELECT organization_id, webhook_id, next_attempt_at FROM webhook_deliveries
          WHERE status = 'pending' ORDER BY organization_id, webhook_id, next_attempt_at LIMIT 1)
         UNION ALL
         SELECT n.organization_id, n.webhook_id, n.next_attempt_at FROM active a CROSS JOIN LATERAL (
           SELECT d.organization_id, d.webhook_id, d.next_attempt_at FROM webhook_deliveries d
           WHERE d.status = 'pending' AND (d.organization_id, d.webhook_id) > (a.organization_id, a.webhook_id)
           ORDER BY d.organization_id, d.webhook_id, d.next_attempt_at LIMIT 1
         ) n
       ), subscriptions AS (
         SELECT a.organization_id, a.webhook_id, coalesce(b.n, 0) AS busy
         FROM active a LEFT JOIN unnest($5::uuid[], $6::int[]) AS b (organization_id, n) ON b.organization_id = a.organization_id
         WHERE a.next_attempt_at <= $1
       ), offered AS (
         SELECT o.id, s.organization_id, o.next_attempt_at, s.busy,
                row_number() OVER (PARTITION BY s.organization_id, s.webhook_id ORDER BY o.next_attempt_at, o.id) AS nth
         FROM subscriptions s
         CROSS JOIN LATERAL (
           SELECT $2 - count(*) AS room FROM webhook_deliveries f
           WHERE f.organization_id = s.organization_id AND f.webhook_id = s.webhook_id AND f.leased_until > $1
         ) r
         CROSS JOIN LATERAL (
           SELECT d.id, d.next_attempt_at FROM webhook_deliveries d
           WHERE d.organization_id = s.organization_id AND d.webhook_id = s.webhook_id
             AND d.status = 'pending' AND d.next_attempt_at <= $1
             AND (d.leased_until IS NULL OR d.leased_until <= $1)
           ORDER BY d.next_attempt_at, d.id
           LIMIT greatest(least(r.room, $3, $7 - s.busy), 0)
           FOR UPDATE OF d SKIP LOCKED
         ) o
       ), leveled AS (
         SELECT id, organization_id, next_attempt_at,
                busy + row_number() OVER (PARTITION BY organization_id ORDER BY nth, next_attempt_at, id) AS level
         FROM offered
       ), due AS (
         SELECT id, organization_id FROM leveled
         WHERE level <= $7
         ORDER BY level, next_attempt_at, id
         LIMIT $3
       ), leased AS (
         UPDATE webhook_deliveries d SET leased_until = $4, updated_at = $1
         FROM due WHERE d.organization_id = due.organization_id AND d.id = due.id
         RETURNING d.id, d.organization_id, d.webhook_id, d.event_id, d.attempt_count
       )
       SELECT l.id, l.organization_id, l.webhook_id, l.attempt_count, l.event_id,
              w.url, w.secret, w.enabled, w.failing_since, e.body
       FROM leased l
       JOIN webhooks w ON w.organization_id = l.organization_id AND w.id = l.webhook_id
       JOIN webhook_events e ON e.organization_id = l.organization_id AND e.id = l.event_id`,
      [
        now,
        MAX_IN_FLIGHT_PER_SUBSCRIPTION,
        limit,
        new Date(now.getTime() + LEASE_MS),
        [...busy.keys()],
        [...busy.values()],
        MAX_IN_FLIGHT_PER_ORGANIZATION
      ]
    )

  const deliver = (item: Claimed) =>
    Effect.gen(function*() {
      const outcome: Outcome = item.enabled
        ? yield* post(item.url, deliveryHeaders({ secret: item.secret, id: item.eventId, timestampSeconds: Math.floor((yield* Clock.currentTimeMillis) / 1000), body: item.body }), item.body, options.allowInsecure)
        : { statusCode: null, responseBody: null, error: "the subscription is disabled", durationMs: 0 }
      const now = new Date(yield* Clock.currentTimeMillis)
      const succeeded = outcome.statusCode !== null && isSuccessStatus(outcome.statusCode)
      const attempts = item.attemptCount + 1
      const delay = succeeded || !item.enabled ? undefined : Option.getOrUndefined(Option.map(nextAttemptDelay(attempts), Duration.toMillis))
      const status = succeeded ? "succeeded" : delay === undefined ? "failed" : "pending"
      yield* rows(
        `WITH a AS (
           INSERT INTO webhook_attempts (organization_id, delivery_id, attempted_at, status_code, duration_ms, response_body, error)
           VALUES ($1, $2, $3, $4, $5, $6, $7)
         )
         UPDATE webhook_deliveries SET status = $8, attempt_count = $9, next_attempt_at = $10, leased_until = NULL, updated_at = $3
         WHERE organization_id = $1 AND id = $2`,
        [
          item.organizationId,
          item.id,
          now,
          outcome.statusCode,
          outcome.durationMs,
          outcome.responseBody,
          outcome.error,
          status,
          attempts,
          delay === undefined ? null : new Date(now.getTime() + delay)
        ]
      )
      if (!item.enabled) return
      if (succeeded) {
        if (item.failingSince !== null) {
          yield* rows(`UPDATE webhooks SET failing_since = NULL WHERE organization_id = $1 AND id = $2`, [item.organizationId, item.webhookId])
        }
        return
      }
      const failingSince = item.failingSince ?? now
      const disable = shouldDisableSubscription(failingSince, now)
      yield* rows(
        `UPDATE webhooks SET failing_since = coalesce(failing_since, $3),
           enabled = CASE WHEN $4 THEN false ELSE enabled END,
           disabled_reason = CASE WHEN $4 THEN 'failing for 5 days' ELSE disabled_reason END
         WHERE organization_id = $1 AND id = $2`,
        [item.organizationId, item.webhookId, failingSince, disable]
      )
    })

  /** One pass: claims what is due (up to `limit`) and delivers it, in parallel. Returns how many were sent. */
  const runOnce = (limit: number = MAX_IN_FLIGHT) =>
    Effect.gen(function*() {
      const now = new Date(yield* Clock.currentTimeMillis)
      const claimed = yield* claim(now, limit, new Map())
      yield* Effect.forEach(claimed, deliver, { concurrency: "unbounded", discard: true })
      return claimed.length
    })

  /**
   * Delivers continuously: keeps up to MAX_IN_FLIGHT deliveries in flight (MAX_IN_FLIGHT_PER_ORGANIZATION
   * of one organization), claiming again as soon as one finishes while there is due work, and looking
   * again every second when there is none.
   */
  const run = Effect.gen(function*() {
    const finished = yield* Queue.unbounded<void>()
    /** This instance's deliveries in flight, per organization. */
    const busy = new Map<string, number>()
    let inFlight = 0
    const settle = (organizationId: string) =>
      Effect.suspend(() => {
        inFlight--
        const left = (busy.get(organizationId) ?? 1) - 1
        if (left === 0) busy.delete(organizationId)
        else busy.set(organizationId, left)
        return Queue.offer(finished, undefined)
      })
    for (;;) {
      const free = MAX_IN_FLIGHT - inFlight
      const claimed = free === 0 ? [] : yield* claim(new Date(yield* Clock.currentTimeMillis), free, busy).pipe(
        Effect.catchCause((cause) => Effect.as(Effect.logWarning("Webhook worker claim failed", cause), []))
      )
      for (const item of claimed) {
        inFlight++
        busy.set(item.organizationId, (busy.get(item.organizationId) ?? 0) + 1)
        yield* deliver(item).pipe(
          Effect.catchCause((cause) => Effect.logWarning("Webhook delivery failed", cause)),
          Effect.ensuring(settle(item.organizationId)),
          Effect.forkScoped
        )
      }
      // Nothing claimed (nothing due, or nothing this instance may take: subscriptions and organizations
      // at their bounds), or full: wait for a delivery to finish (at once when one finished during the
      // claim), or for the idle interval when none does.
      if (claimed.length === 0 || inFlight === MAX_IN_FLIGHT) {
        yield* Effect.race(Queue.take(finished), Effect.sleep(IDLE_MS))
      }
      // Drops the signals already there without waiting (v4's `Queue.takeAll` would wait for one).
      yield* Queue.clear(finished)
    }
  })

  return { claim, runOnce, run } as const
})

/** Runs the worker on this instance, for the life of the layer. */
export const workerLayer = (options: WorkerOptions) => Layer.effectDiscard(
  Effect.gen(function*() {
    const worker = yield* makeWorker(options)
    yield* Effect.forkScoped(worker.run)
  })
)
