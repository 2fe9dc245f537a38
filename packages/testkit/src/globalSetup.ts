import { startEmbedded } from "@bizops/server"
import { Effect, Exit, Scope } from "effect"
import { chmod, mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { TestProject } from "vitest/node"

declare module "vitest" {
  export interface ProvidedContext {
    /** A PostgreSQL server on which each test file creates its own fresh database. */
    databaseAdminUrl: string
  }
}

/**
 * Once per test run: the PostgreSQL server the tests use. With DATABASE_URL, that server; without,
 * an embedded PostgreSQL in a new temporary directory, removed at the end (never shared with an
 * earlier run).
 */
export default async function setup(project: TestProject) {
  const url = process.env.DATABASE_URL
  if (url !== undefined && url.length > 0) {
    project.provide("databaseAdminUrl", url)
    return
  }
  const dir = await mkdtemp(join(tmpdir(), "bizops-test-"))
  await chmod(dir, 0o755)
  const scope = Effect.runSync(Scope.make())
  const server = await Effect.runPromise(Scope.extend(startEmbedded(dir, { quiet: true }), scope))
  project.provide("databaseAdminUrl", server.url("postgres"))
  return async () => {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    await rm(dir, { recursive: true, force: true })
  }
}
