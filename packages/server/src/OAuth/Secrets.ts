import { createHash, randomBytes, scrypt, timingSafeEqual } from "node:crypto"

/**
 * Hashes of secrets. Passwords and client secrets: scrypt (N=2^14, r=8, p=1, 16-byte salt, 32-byte key),
 * stored as `scrypt$N$r$p$salt$hash` (base64url), compared in constant time. Codes, refresh tokens and
 * session ids are 256-bit random values: a SHA-256 of them is enough (nothing to guess), and it lets the
 * database find them by their hash.
 */
const N = 16_384
const R = 8
const P = 1
const KEY_LENGTH = 32

const scryptAsync = (secret: string, salt: Buffer, n: number, r: number, p: number) =>
  new Promise<Buffer>((resolve, reject) =>
    scrypt(secret, salt, KEY_LENGTH, { N: n, r, p, maxmem: 64 * 1024 * 1024 }, (error, key) => error ? reject(error) : resolve(key))
  )

export const hashSecret = async (secret: string): Promise<string> => {
  const salt = randomBytes(16)
  const key = await scryptAsync(secret, salt, N, R, P)
  return `scrypt$${N}$${R}$${P}$${salt.toString("base64url")}$${key.toString("base64url")}`
}

export const verifySecret = async (secret: string, stored: string): Promise<boolean> => {
  const parts = stored.split("$")
  if (parts.length !== 6 || parts[0] !== "scrypt") return false
  const [n, r, p] = [Number(parts[1]), Number(parts[2]), Number(parts[3])]
  const expected = Buffer.from(parts[5], "base64url")
  const key = await scryptAsync(secret, Buffer.from(parts[4], "base64url"), n, r, p)
  return key.length === expected.length && timingSafeEqual(key, expected)
}

/** A random token: `prefix` + 32 random bytes, base64url. */
export const randomToken = (prefix = ""): string => `${prefix}${randomBytes(32).toString("base64url")}`

export const sha256 = (value: string): Buffer => createHash("sha256").update(value).digest()

/** The S256 code challenge of a PKCE verifier (RFC 7636 4.2). */
export const s256 = (verifier: string): string => createHash("sha256").update(verifier, "ascii").digest("base64url")
