import { randomUUID } from "node:crypto"

/** A client-sent `X-Request-Id` of 1 to 200 printable ASCII characters is kept; otherwise we make one. */
export const requestIdFrom = (header: string | undefined): string =>
  header !== undefined && /^[\x21-\x7e]{1,200}$/.test(header) ? header : `req_${randomUUID().replaceAll("-", "")}`
