import { Effect } from "effect"
import { createServer, type IncomingHttpHeaders } from "node:http"

export interface Received {
  readonly headers: IncomingHttpHeaders
  readonly body: string
  readonly at: number
}

export interface Receiver {
  /** `http://127.0.0.1:PORT/hook`. */
  readonly url: string
  /** Every request so far, in order. */
  readonly received: () => ReadonlyArray<Received>
  /** The statuses to answer with, in order; once used up, 200. */
  readonly respondWith: (statuses: ReadonlyArray<number>) => void
  /** Waits until `n` requests arrived (up to `seconds`). */
  readonly waitFor: (n: number, seconds?: number) => Effect.Effect<ReadonlyArray<Received>>
}

/**
 * A webhook receiver on a loopback port (any free one by default) for the length of the scope; with
 * `answerAfterMs`, it answers each request that long after it arrived (a slow receiver).
 */
export const receiverOn = (port: number, options?: { readonly answerAfterMs?: number }) => Effect.acquireRelease(
  Effect.callback<{ readonly receiver: Receiver; readonly close: () => Promise<void> }>((resume) => {
    const received: Array<Received> = []
    let statuses: Array<number> = []
    const server = createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (c: Buffer) => chunks.push(c))
      req.on("end", () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8"), at: Date.now() })
        const status = statuses.shift() ?? 200
        const answer = () => {
          res.writeHead(status, { "content-type": "text/plain" })
          res.end(status === 200 ? "ok" : "not now")
        }
        if (options?.answerAfterMs === undefined) answer()
        // Unref'd: a receiver that answers late does not keep the test process alive.
        else setTimeout(answer, options.answerAfterMs).unref()
      })
    })
    server.listen(port, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      const waitFor = (n: number, seconds = 20) =>
        Effect.promise(async () => {
          const deadline = Date.now() + seconds * 1000
          while (received.length < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
          return [...received]
        })
      resume(Effect.succeed({
        receiver: {
          url: `http://127.0.0.1:${port}/hook`,
          received: () => [...received],
          respondWith: (list) => {
            statuses = [...list]
          },
          waitFor
        },
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done())
            server.closeAllConnections()
          })
      }))
    })
  }),
  ({ close }) => Effect.promise(close)
).pipe(Effect.map(({ receiver }) => receiver))

export const receiver = receiverOn(0)
