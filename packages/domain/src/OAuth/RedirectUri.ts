import { Result } from "effect"

/**
 * Redirect URIs (RFC 6749 3.1.2, RFC 8252 7.3 and 8.3, RFC 9700 2.1 and 4.1): registered as absolute
 * https URIs, or http URIs of a loopback host for development; compared as exact strings, except that the
 * port of a registered http loopback URI may differ.
 */

/** The hosts an http redirect URI may name, spelled exactly so. */
const LOOPBACK_HOSTS: ReadonlyArray<string> = ["localhost", "127.0.0.1", "[::1]"]

/** Only the characters RFC 3986 allows in a URI; a `%` must start a percent-encoding. */
const URI_CHARACTERS = /^(?:[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$/

/** Scheme, authority, and the rest (path and query), read from the string itself, not from a parsed URL. */
const PARTS = /^(https?):\/\/([^/?#]*)(.*)$/

/** An http loopback URI: host spelled exactly, optional port, then the rest. */
const LOOPBACK = /^http:\/\/(localhost|127\.0\.0\.1|\[::1\])(?::(\d{1,5}))?([/?].*)?$/

const parses = (uri: string): URL | undefined => {
  try {
    return new URL(uri)
  } catch {
    return undefined
  }
}

/** Whether a URL's host is a loopback host: localhost, 127.0.0.1 or [::1]. */
export const isLoopback = (url: URL): boolean => LOOPBACK_HOSTS.includes(url.hostname)

/**
 * A redirect URI given at registration: an absolute URI without fragment; https with any host, or http
 * with the host localhost, 127.0.0.1 or [::1] (any port). The scheme must be written in lower case and the
 * loopback host exactly as above, since requests are compared with the string as registered. No user
 * information (`https://trusted.example@evil.example/` misleads people). Right: the URI as given.
 */
export const checkRedirectUri = (uri: string): Result.Result<string, string> => {
  if (!URI_CHARACTERS.test(uri)) return Result.fail("the redirect URI contains characters a URI cannot contain (RFC 3986)")
  if (uri.includes("#")) return Result.fail("the redirect URI must not have a fragment")
  const parts = PARTS.exec(uri)
  if (parts === null) {
    return Result.fail("the redirect URI must be an absolute URI starting with https:// (or http:// for localhost, 127.0.0.1 or [::1])")
  }
  const [, scheme, authority] = parts
  if (authority.length === 0) return Result.fail("the redirect URI must name a host")
  if (authority.includes("@")) return Result.fail("the redirect URI must not contain user information")
  const url = parses(uri)
  if (url === undefined || url.hostname.length === 0) return Result.fail("the redirect URI is not a valid absolute URI")
  if (scheme === "http" && !(LOOPBACK.test(uri) && isLoopback(url))) {
    return Result.fail("an http redirect URI must have the host localhost, 127.0.0.1 or [::1]; use https otherwise")
  }
  return Result.succeed(uri)
}

/**
 * Whether a redirect URI sent in a request is one of the registered ones: exact string comparison (RFC
 * 9700 4.1.1: no patterns, no normalisation), except that for a registered http loopback URI any port
 * is accepted (RFC 8252 7.3): same scheme, same host as spelled, same path and query. A requested URI
 * with a fragment never matches.
 */
export const redirectUriMatches = (registered: ReadonlyArray<string>, requested: string): boolean => {
  if (requested.includes("#")) return false
  return registered.some((r) => r === requested || loopbackMatches(r, requested))
}

const loopbackMatches = (registered: string, requested: string): boolean => {
  const r = LOOPBACK.exec(registered)
  if (r === null) return false
  const q = LOOPBACK.exec(requested)
  if (q === null) return false
  return r[1] === q[1] && (r[3] ?? "") === (q[3] ?? "") && parses(requested) !== undefined
}
