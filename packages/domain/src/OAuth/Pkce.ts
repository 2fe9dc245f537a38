import { Result } from "effect"

/**
 * PKCE (RFC 7636), S256 only (RFC 9700 2.1.1). The server computes a challenge as
 * `base64UrlEncode(sha256(verifier))` and compares it with the stored one.
 */

/** RFC 7636 4.1: code-verifier = 43*128unreserved, unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~". */
export const isCodeVerifier = (v: string): boolean => /^[A-Za-z0-9\-._~]{43,128}$/.test(v)

/** RFC 7636 4.2 with S256: a SHA-256 base64url-encoded without padding, which is 43 characters. */
export const isCodeChallenge = (c: string): boolean => /^[A-Za-z0-9\-_]{43}$/.test(c)

export const CODE_CHALLENGE_METHODS = ["S256"] as const

/**
 * The `code_challenge_method` of an authorization request: only S256. A missing method would mean
 * `plain` (RFC 7636 4.3), which is refused too. The Left is an `error_description` (of an
 * `invalid_request` error, RFC 7636 4.4.1); it repeats no characters of the request but `plain`.
 */
export const checkChallengeMethod = (method: string | undefined): Result.Result<"S256", string> => {
  if (method === "S256") return Result.succeed("S256")
  if (method === undefined) return Result.fail("code_challenge_method is required and must be S256")
  if (method === "plain") return Result.fail("code_challenge_method plain is not supported; S256 is required")
  return Result.fail("code_challenge_method is not supported; S256 is required")
}

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

/** Base64url (RFC 4648 5) without padding. */
export const base64UrlEncode = (bytes: Uint8Array): string => {
  let out = ""
  let i = 0
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2]
    out += ALPHABET[(n >> 18) & 63] + ALPHABET[(n >> 12) & 63] + ALPHABET[(n >> 6) & 63] + ALPHABET[n & 63]
  }
  const rest = bytes.length - i
  if (rest === 1) {
    const n = bytes[i] << 16
    out += ALPHABET[(n >> 18) & 63] + ALPHABET[(n >> 12) & 63]
  } else if (rest === 2) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8)
    out += ALPHABET[(n >> 18) & 63] + ALPHABET[(n >> 12) & 63] + ALPHABET[(n >> 6) & 63]
  }
  return out
}
