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
