import { createHash, randomBytes, timingSafeEqual } from "node:crypto"

/** Every key starts with this, so that secret scanners can find a leaked one. */
export const KEY_PREFIX = "bok_"

/** A new API key: the prefix and 32 random bytes, base64url. Shown once; only its hash is stored. */
export const generateApiKey = (): string => `${KEY_PREFIX}${randomBytes(32).toString("base64url")}`

/** The stored form of a key: SHA-256 of the whole key (a key has 256 bits of entropy, so no salt is needed). */
export const hashApiKey = (key: string): Buffer => createHash("sha256").update(key, "utf8").digest()

/** Compares two hashes in constant time. */
export const sameHash = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && timingSafeEqual(a, b)

/** Whether a credential has the shape of one of our keys (cheap check before any database work). */
export const looksLikeApiKey = (value: string): boolean => /^bok_[A-Za-z0-9_-]{43}$/.test(value)

/** The part of a key that may be shown to identify it: prefix and four characters. */
export const displayPrefix = (key: string): string => key.slice(0, KEY_PREFIX.length + 4)
