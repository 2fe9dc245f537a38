import { ALL_SCOPES } from "@bizops/domain"
import { Console, Effect, Option } from "effect"
import { chmod, mkdir, writeFile } from "node:fs/promises"
import { join, resolve } from "node:path"
import { AccessRepo } from "./Access/AccessRepo.js"
import { AppConfig } from "./Config.js"
import { isEmbedded } from "./Sql/Database.js"
import { firstStartHelp } from "./Startup.js"

/** The text a first start prints once the server listens, given the address it listens on. */
export type FirstStartHelpText = (baseUrl: string) => string

/**
 * First start, when the database has no organization yet. On the embedded database: create "Demo" with
 * an all-scopes API key, print the key once and write it to DATA_DIR/dev-credentials.json (mode 0600).
 * On DATABASE_URL (a database of the operator's, where nothing is made unasked): return the admin
 * commands that make an organization and its key, for main.ts to print once the server listens (with
 * the port it got). A later start, with an organization, prints nothing.
 */
export const bootstrap = Effect.gen(function*() {
  const config = yield* AppConfig
  const access = yield* AccessRepo
  if ((yield* access.countOrganizations) > 0) return Option.none<FirstStartHelpText>()
  if (!(yield* isEmbedded)) return Option.some<FirstStartHelpText>(firstStartHelp)
  const org = yield* access.createOrganization("Demo")
  const key = yield* access.createKey({ organizationId: org.organizationId, scopes: ALL_SCOPES, name: "Demo key" })
  const file = join(resolve(config.dataDir), "dev-credentials.json")
  yield* Effect.promise(async () => {
    await mkdir(resolve(config.dataDir), { recursive: true })
    await writeFile(file, JSON.stringify({ ...org, apiKeyId: key.id, apiKey: key.apiKey, scopes: key.scopes }, null, 2) + "\n", { mode: 0o600 })
    await chmod(file, 0o600)
  })
  yield* Console.log(
    [
      "",
      "Created the Demo organization. Its API key (all scopes), shown this once:",
      "",
      `  ${key.apiKey}`,
      "",
      `It is also in ${file}. Try:`,
      `  curl -s ${config.baseUrl}/api/v1/clients -H "x-api-key: ${key.apiKey}"`,
      ""
    ].join("\n")
  )
  return Option.none<FirstStartHelpText>()
}).pipe(Effect.provide(AccessRepo.layer))
