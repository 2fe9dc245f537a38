/**
 * The operator command line (`scripts/admin.ts`) in tests: run on the test server's database, its result
 * (exit 0, one JSON object on stdout) or its error object (exit 1, `{"error":{...}}` last on stderr).
 */
import { expect } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { mkdtemp, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type CommandRun, runScript } from "./Process.js"
import { TestServer } from "./TestServer.js"

/** `npm run admin -- ARGS` on the test server's database. */
export const admin = (...args: Array<string>) =>
  Effect.flatMap(TestServer, (server) => runScript("scripts/admin.ts", args, { DATABASE_URL: server.databaseUrl }))

/** `npm run admin -- import KIND --org ORG --file -` with the records (or text) on standard input. */
export const importFromStdin = (kind: string, organizationId: string, records: unknown) =>
  Effect.flatMap(TestServer, (server) =>
    runScript("scripts/admin.ts", ["import", kind, "--org", organizationId, "--file", "-"], { DATABASE_URL: server.databaseUrl }, {
      input: typeof records === "string" ? records : JSON.stringify(records)
    }))

/** `npm run admin -- import KIND --org ORG --file FILE` with the records (or text) written to a file of their own. */
export const importFromFile = (kind: string, organizationId: string, records: unknown) =>
  Effect.gen(function*() {
    const dir = yield* Effect.promise(() => mkdtemp(join(tmpdir(), "bizops-import-")))
    const file = join(dir, `${kind}.json`)
    yield* Effect.promise(() => writeFile(file, typeof records === "string" ? records : JSON.stringify(records)))
    return yield* admin("import", kind, "--org", organizationId, "--file", file)
  })

/** The last line a command printed, as JSON. */
export const lastJson = (text: string): unknown => JSON.parse(text.trim().split("\n").at(-1) ?? "null")

/** A command that succeeded: exit 0, no error object; what it printed. */
export const succeeded = (run: CommandRun) => {
  expect(run.stderr.includes("\"error\"") ? run.stderr : "").toBe("")
  expect(run.code).toBe(0)
  return JSON.parse(run.stdout)
}

/** What an import prints. */
export const ImportResult = Schema.Struct({
  created: Schema.Number,
  updated: Schema.Number,
  unchanged: Schema.Number,
  ids: Schema.Array(Schema.String)
})

/** An import that succeeded: its counts and ids, checked. */
export const imported = (run: CommandRun) => Schema.decodeUnknownSync(ImportResult)(succeeded(run))

/** An issue of a refused import: the record's index (-1: the file), where in it, what is wrong. */
export const ImportIssue = Schema.Struct({
  index: Schema.Number,
  path: Schema.Array(Schema.Union([Schema.String, Schema.Number])),
  message: Schema.String
})

/** The error object a command prints: `issues` only for invalid_import. */
export const CommandError = Schema.Struct({
  code: Schema.String,
  message: Schema.String,
  issues: Schema.optionalKey(Schema.Array(ImportIssue))
})

/** A command refused: exit 1, nothing on stdout; its error object. */
export const refused = (run: CommandRun) => {
  expect(run.stdout).toBe("")
  expect(run.code).toBe(1)
  return Schema.decodeUnknownSync(Schema.Struct({ error: CommandError }))(lastJson(run.stderr)).error
}

/** An import refused as a whole: invalid_import, with every issue. */
export const invalidImport = (run: CommandRun) => {
  const error = refused(run)
  expect(error.code).toBe("invalid_import")
  return { message: error.message, issues: error.issues ?? [] }
}
