import { expect } from "vitest"
import type { Response } from "./Http.js"

/** A UUID that no record has. */
export const NIL = "00000000-0000-4000-8000-000000000000"

/** ISO 8601 UTC with milliseconds, as every timestamp of the API is written. */
export const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

type Answer = Pick<Response, "status" | "headers" | "body">

/** Every error body is the envelope, its requestId equal to the X-Request-Id header. */
export const expectError = (res: Answer, status: number, code: string, detail?: string) => {
  expect(res.status).toBe(status)
  expect(res.body.error.code).toBe(code)
  expect(typeof res.body.error.message).toBe("string")
  expect(res.body.error.requestId).toBe(res.headers.get("x-request-id"))
  if (detail !== undefined) expect(res.body.error.details?.code).toBe(detail)
}

/** A 400 invalid_payload whose first issue names `field`. */
export const expectInvalid = (res: Answer, field: string) => {
  expectError(res, 400, "invalid_request", "invalid_payload")
  expect(Array.isArray(res.body.error.details.issues)).toBe(true)
  expect(res.body.error.details.issues[0].path[0]).toBe(field)
  expect(typeof res.body.error.details.issues[0].message).toBe("string")
}
