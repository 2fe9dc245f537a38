import { spawn } from "node:child_process"
import { chmod, mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import type { TestProject } from "vitest/node"

declare module "vitest" {
  export interface ProvidedContext {
    /** A PostgreSQL server on which each test file creates its own fresh database. */
    databaseAdminUrl: string
  }
}

const root = resolve(import.meta.dirname, "../../..")

/**
 * Once per test run: the PostgreSQL server the tests use. With DATABASE_URL, that server; without, an
 * embedded PostgreSQL in a new temporary directory, run by its own process (embeddedMain.ts says why)
 * and removed at the end (never shared with an earlier run).
 */
export default async function setup(project: TestProject) {
  const url = process.env.DATABASE_URL
  if (url !== undefined && url.length > 0) {
    project.provide("databaseAdminUrl", url)
    return
  }
  const dir = await mkdtemp(join(tmpdir(), "bizops-test-"))
  await chmod(dir, 0o755)
  const child = spawn(join(root, "node_modules/.bin/tsx"), ["--conditions=source", join(root, "packages/testkit/src/embeddedMain.ts"), dir], {
    cwd: root,
    stdio: ["pipe", "pipe", "inherit"]
  })
  const embeddedUrl = await new Promise<string>((ready, fail) => {
    let output = ""
    child.stdout.on("data", (d: Buffer) => {
      output += d.toString()
      const match = /^URL (\S+)$/m.exec(output)
      if (match) ready(match[1])
    })
    child.once("exit", (code) => fail(new Error(`the embedded PostgreSQL did not start (exit ${code}): ${output}`)))
  })
  project.provide("databaseAdminUrl", embeddedUrl)
  return async () => {
    await new Promise<void>((done) => {
      child.once("exit", () => done())
      child.kill("SIGTERM")
    })
    await rm(dir, { recursive: true, force: true })
  }
}
