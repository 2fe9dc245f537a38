import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** The tag of a dollar quote that opens at `i` ($$ or $name$), if one does (not a `$1` parameter). */
const dollarTagAt = (script: string, i: number): string | undefined =>
  /[A-Za-z0-9_$]/.test(script[i - 1] ?? "") ? undefined : /^\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$/.exec(script.slice(i, i + 64))?.[0]

/**
 * The statements of a SQL script: split at each `;` that is outside a string ('…'), a quoted name
 * ("…"), a dollar-quoted body ($$…$$, $tag$…$tag$) and a comment (-- … and /* … *\/, which nest).
 * Pieces with nothing but blanks and comments are dropped; comments inside a statement stay in it.
 * Enough for our migrations; an E'…' string with a backslash-escaped quote would not be understood.
 */
export const splitStatements = (script: string): ReadonlyArray<string> => {
  const statements: Array<string> = []
  let start = 0
  let hasCode = false
  let i = 0
  const end = script.length
  while (i < end) {
    const c = script[i]
    const next = script[i + 1]
    const tag = c === "$" ? dollarTagAt(script, i) : undefined
    if (c === "-" && next === "-") {
      const newline = script.indexOf("\n", i + 2)
      i = newline === -1 ? end : newline + 1
    } else if (c === "/" && next === "*") {
      let depth = 1
      i += 2
      while (i < end && depth > 0) {
        if (script[i] === "/" && script[i + 1] === "*") {
          depth++
          i += 2
        } else if (script[i] === "*" && script[i + 1] === "/") {
          depth--
          i += 2
        } else i++
      }
    } else if (c === "'" || c === "\"") {
      // A doubled quote inside is the quote itself: the scan leaves and re-enters the quoted text.
      const close = script.indexOf(c, i + 1)
      i = close === -1 ? end : close + 1
      hasCode = true
    } else if (tag !== undefined) {
      const close = script.indexOf(tag, i + tag.length)
      i = close === -1 ? end : close + tag.length
      hasCode = true
    } else if (c === ";") {
      if (hasCode) statements.push(script.slice(start, i).trim())
      i++
      start = i
      hasCode = false
    } else {
      if (c !== undefined && !/\s/.test(c)) hasCode = true
      i++
    }
  }
  if (hasCode) statements.push(script.slice(start).trim())
  return statements
}

/**
 * Runs a SQL script (a migration's) one statement after the other, on the current transaction's
 * connection when there is one. @effect/sql-pg 4 sends every query through the extended protocol,
 * which refuses several statements in one text ("cannot insert multiple commands into a prepared
 * statement"); and a statement that runs once is not worth preparing, so each goes unprepared.
 */
export const runScript = (script: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    for (const statement of splitStatements(script)) yield* sql.unsafe(statement).unprepared
  })
