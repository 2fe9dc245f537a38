import { createHash } from "node:crypto"
import type pg from "pg"

/** Distinct statements prepared per connection at most; later ones run unnamed (as before). */
const MAX_PREPARED = 1000

const names = new Map<string, string>()

/** A stable name for a statement's text, or none once the cap is reached. */
export const statementName = (text: string): string | undefined => {
  const known = names.get(text)
  if (known !== undefined || names.size >= MAX_PREPARED) return known
  const name = `s_${createHash("sha1").update(text).digest("base64url").slice(0, 20)}`
  names.set(text, name)
  return name
}

/**
 * Automatic prepared statements for a connection: every statement with parameters is sent under a
 * name derived from its text, so PostgreSQL parses and plans it once per connection and reuses the
 * plan after (node-postgres remembers what each connection has prepared). @effect/sql-pg sends every
 * query unnamed; measured here, parsing and planning each time halved throughput (npm run bench).
 * Statements without parameters (migrations, multi-statement scripts) are left as they are.
 */
export const autoPrepare = (client: pg.PoolClient): void => {
  const original: Function = client.query
  Object.defineProperty(client, "query", {
    configurable: true,
    writable: true,
    value: (...args: Array<unknown>) => {
      const [text, values, callback] = args
      if (typeof text === "string" && Array.isArray(values) && values.length > 0 && typeof callback === "function") {
        const name = statementName(text)
        if (name !== undefined) return Reflect.apply(original, client, [{ name, text, values }, callback])
      }
      return Reflect.apply(original, client, args)
    }
  })
}
