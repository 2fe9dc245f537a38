import { request as httpRequest } from "node:http"
import { Effect } from "effect"
import { TestServer } from "./TestServer.js"

export interface Response {
  readonly status: number
  readonly headers: Headers
  /** The parsed JSON body; undefined when the body is empty. */
  readonly body: any
  readonly text: string
}

export interface RequestOptions {
  /** Sent as `x-api-key`. */
  readonly key?: string
  /** Sent as `Authorization: Bearer`. */
  readonly bearer?: string
  /** Encoded as JSON. */
  readonly json?: unknown
  /** Sent as it is. */
  readonly raw?: string
  readonly headers?: Record<string, string>
}

/** One real HTTP request to the server under test. */
export const request = (method: string, path: string, options: RequestOptions = {}) =>
  Effect.gen(function*() {
    const { baseUrl } = yield* TestServer
    const headers: Record<string, string> = { ...options.headers }
    if (options.key !== undefined) headers["x-api-key"] = options.key
    if (options.bearer !== undefined) headers["authorization"] = `Bearer ${options.bearer}`
    let body: string | undefined
    if (options.json !== undefined) {
      body = JSON.stringify(options.json)
      headers["content-type"] ??= "application/json"
    } else if (options.raw !== undefined) {
      body = options.raw
    }
    return yield* Effect.promise(async (): Promise<Response> => {
      const response = await fetch(`${baseUrl}${path}`, { method, headers, ...(body === undefined ? {} : { body }) })
      const text = await response.text()
      let parsed: unknown = undefined
      if (text.length > 0) {
        try {
          parsed = JSON.parse(text)
        } catch {
          parsed = undefined
        }
      }
      return { status: response.status, headers: response.headers, body: parsed, text }
    })
  })

export const get = (path: string, options?: RequestOptions) => request("GET", path, options)
export const post = (path: string, json: unknown, options?: RequestOptions) => request("POST", path, { ...options, json })
export const patch = (path: string, json: unknown, options?: RequestOptions) => request("PATCH", path, { ...options, json })
export const del = (path: string, options?: RequestOptions) => request("DELETE", path, options)

export interface RawResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string | Array<string> | undefined>>
  readonly body: any
}

/**
 * One request whose path is sent exactly as given (fetch would resolve `.` segments), and whose body,
 * when given as chunks, goes with `Transfer-Encoding: chunked` and no Content-Length.
 */
export const rawRequest = (
  method: string,
  path: string,
  options: { readonly headers?: Record<string, string>; readonly body?: string; readonly chunks?: ReadonlyArray<string | Buffer> } = {}
) =>
  Effect.gen(function*() {
    const { baseUrl } = yield* TestServer
    const url = new URL(baseUrl)
    return yield* Effect.callback<RawResponse, Error>((resume) => {
      const headers = options.body === undefined ? { ...options.headers } : { "content-length": String(Buffer.byteLength(options.body)), ...options.headers }
      const req = httpRequest({ host: url.hostname, port: url.port, method, path, headers }, (res) => {
        const parts: Array<Buffer> = []
        res.on("data", (chunk: Buffer) => parts.push(chunk))
        res.on("end", () => {
          const text = Buffer.concat(parts).toString("utf8")
          let body: unknown = undefined
          try {
            body = text.length > 0 ? JSON.parse(text) : undefined
          } catch {
            body = text
          }
          resume(Effect.succeed({ status: res.statusCode ?? 0, headers: res.headers, body }))
        })
        res.on("error", (error) => resume(Effect.fail(error)))
      })
      req.on("error", (error) => resume(Effect.fail(error)))
      if (options.chunks !== undefined) {
        for (const chunk of options.chunks) req.write(chunk)
      } else if (options.body !== undefined) {
        req.write(options.body)
      }
      req.end()
    })
  })
