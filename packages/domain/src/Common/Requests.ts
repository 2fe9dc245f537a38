/**
 * Rules about the shape of a request, checked before any routing or decoding: which request paths are
 * canonical, and how deeply a JSON body nests.
 */

/** The deepest nesting of arrays and objects a JSON body may have (the top-level value is level 1). */
export const MAX_JSON_DEPTH = 64

const UNRESERVED = /^[A-Za-z0-9\-._~]$/

/**
 * Whether a request path is spelled the one way our routes are written: it starts with `/`, has no
 * empty segment (`//`, a trailing `/`), no `.` or `..` segment, no malformed `%` escape, and no
 * `%`-escape of a character that needs none (`%69` for `i`). Case is left to the router, which is
 * case-sensitive. A path that is not canonical is answered 404, never served under weaker checks.
 */
export const isCanonicalPath = (pathname: string): boolean => {
  if (pathname === "/") return true
  if (!pathname.startsWith("/")) return false
  const segments = pathname.slice(1).split("/")
  for (const segment of segments) {
    if (segment === "" || segment === "." || segment === "..") return false
    for (let i = segment.indexOf("%"); i !== -1; i = segment.indexOf("%", i + 1)) {
      const hex = segment.slice(i + 1, i + 3)
      if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return false
      if (UNRESERVED.test(String.fromCharCode(parseInt(hex, 16)))) return false
    }
  }
  return true
}

/**
 * How deeply a JSON text nests arrays and objects (0 for a scalar), read in one pass without recursion,
 * so that it is safe on any input. Brackets inside strings do not count. On text that is not JSON the
 * answer is still an upper bound of what a parser could build from it.
 */
export const jsonDepth = (text: string): number => {
  let depth = 0
  let deepest = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c) i++ // a backslash escapes the next character
      else if (c === 0x22) inString = false
    } else if (c === 0x22) {
      inString = true
    } else if (c === 0x5b || c === 0x7b) {
      depth++
      if (depth > deepest) deepest = depth
    } else if (c === 0x5d || c === 0x7d) {
      depth--
    }
  }
  return deepest
}

/**
 * The client's address, for the limits kept per address. Without trusted proxies it is the socket's
 * peer. Behind `trustedProxies` proxies (each appending the address it received the request from to
 * `X-Forwarded-For`), it is the entry that the outermost trusted proxy appended: the `trustedProxies`-th
 * from the right. Entries to its left were written by the client (or by proxies we do not trust) and are
 * never read, so a client cannot choose the address it is counted under.
 */
export const clientAddressOf = (
  socketAddress: string | undefined,
  forwardedFor: string | undefined,
  trustedProxies: number
): string => {
  const socket = socketAddress ?? "unknown"
  if (trustedProxies <= 0 || forwardedFor === undefined) return socket
  const entries = forwardedFor.split(",").map((entry) => entry.trim())
  const entry = entries[entries.length - trustedProxies]
  // Fewer entries than trusted proxies: the request did not come through all of them.
  return entry === undefined || entry.length === 0 ? socket : entry
}
