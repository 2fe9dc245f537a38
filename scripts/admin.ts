/**
 * The operator command line: `npm run admin -- <command>`. Every command prints one JSON object on
 * stdout and exits 0; a failure prints `{"error":{"code","message"}}` on stderr and exits non-zero.
 *
 *   org create --name NAME
 *   key create --org ORG --scopes "clients:read clients:write" [--name N] [--rate-limit N]
 *   key revoke --id ID
 *   user create --org ORG --email E --password P
 *   user add-org --user U --org ORG
 *   app create --name N --redirect-uri URI [--redirect-uri URI]... --scopes "read:clients offline_access"
 *              [--description D] [--homepage-url U] [--logo-url U]
 *   app rotate-secret --client-id ID
 *   app disable --client-id ID  /  app enable --client-id ID
 *   app revoke --client-id ID --user USER
 *   signing-key rotate
 *
 * It works on DATABASE_URL; unset, on the embedded PostgreSQL that a running server started under
 * DATA_DIR, or, while no server runs, on that PostgreSQL started for the command.
 */
import {
  AccessRepo,
  AdminError,
  AppConfig,
  AppConfigLive,
  databaseLayer,
  embeddedServerAt,
  migrate,
  OAuthRepo,
  runningEmbeddedPort,
  SigningKeys,
  startEmbedded,
  UnknownScope
} from "@bizops/server"
import { Data, Effect, Layer, Logger, LogLevel, Option, Redacted, Schema } from "effect"
import { connect } from "node:net"

class UsageError extends Data.TaggedError("UsageError")<{ readonly message: string }> {}
class NotFoundError extends Data.TaggedError("NotFoundError")<{ readonly message: string }> {}

const USAGE = `usage: npm run admin -- <command>
  org create --name NAME
  key create --org ORG --scopes "clients:read clients:write" [--name N] [--rate-limit N]
  key revoke --id ID
  user create --org ORG --email E --password P
  user add-org --user U --org ORG
  app create --name N --redirect-uri URI [--redirect-uri URI]... --scopes "read:clients offline_access" [--description D] [--homepage-url U] [--logo-url U]
  app rotate-secret --client-id ID
  app disable --client-id ID | app enable --client-id ID
  app revoke --client-id ID --user USER
  signing-key rotate`

/** `--flag value` pairs after the command words; a flag may repeat (`--redirect-uri`). */
const parseFlags = (args: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const flags = new Map<string, Array<string>>()
    for (let i = 0; i < args.length; i += 2) {
      const flag = args[i]
      const value = args[i + 1]
      if (!flag.startsWith("--") || value === undefined) {
        return yield* new UsageError({ message: `Expected --flag value, got ${args.slice(i).join(" ")}\n${USAGE}` })
      }
      flags.set(flag.slice(2), [...(flags.get(flag.slice(2)) ?? []), value])
    }
    return flags
  })

type Flags = Map<string, Array<string>>

const optional = (flags: Flags, name: string): string | undefined => flags.get(name)?.[0]

const required = (flags: Flags, name: string) =>
  Option.match(Option.fromNullable(optional(flags, name)), {
    onNone: () => Effect.fail(new UsageError({ message: `--${name} is required\n${USAGE}` })),
    onSome: Effect.succeed
  })

const isUuid = Schema.is(Schema.UUID)

const uuidFlag = (flags: Flags, name: string) =>
  Effect.flatMap(required(flags, name), (value) =>
    isUuid(value) ? Effect.succeed(value) : Effect.fail(new UsageError({ message: `--${name} must be a UUID` })))

const command = (args: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const [noun, verb, ...rest] = args
    const flags = yield* parseFlags(rest)
    const access = yield* AccessRepo
    const oauth = yield* OAuthRepo
    switch (`${noun} ${verb}`) {
      case "org create": {
        const name = yield* required(flags, "name")
        if (name.trim().length === 0 || name.length > 200) {
          return yield* new UsageError({ message: "--name must be 1 to 200 characters" })
        }
        return yield* access.createOrganization(name)
      }
      case "key create": {
        const organizationId = yield* uuidFlag(flags, "org")
        if (!(yield* access.organizationExists(organizationId))) {
          return yield* new NotFoundError({ message: `No organization ${organizationId}` })
        }
        const scopes = (yield* required(flags, "scopes")).split(/[\s,]+/).filter((s) => s.length > 0)
        if (scopes.length === 0) return yield* new UsageError({ message: "--scopes names no scope" })
        const rateLimitText = optional(flags, "rate-limit")
        const rateLimit = rateLimitText === undefined ? undefined : Number(rateLimitText)
        if (rateLimit !== undefined && !(Number.isInteger(rateLimit) && rateLimit > 0)) {
          return yield* new UsageError({ message: "--rate-limit must be a positive whole number" })
        }
        return yield* access.createKey({ organizationId, scopes, name: optional(flags, "name"), rateLimit })
      }
      case "key revoke": {
        const id = yield* uuidFlag(flags, "id")
        if (!(yield* access.revokeKey(id))) return yield* new NotFoundError({ message: `No API key ${id}` })
        return { id, revoked: true }
      }
      case "user create":
        return yield* oauth.createUser({
          organizationId: yield* uuidFlag(flags, "org"),
          email: yield* required(flags, "email"),
          password: yield* required(flags, "password")
        })
      case "user add-org":
        return yield* oauth.addUserToOrganization(yield* uuidFlag(flags, "user"), yield* uuidFlag(flags, "org"))
      case "app create": {
        const redirectUris = flags.get("redirect-uri") ?? []
        if (redirectUris.length === 0) return yield* new UsageError({ message: `--redirect-uri is required\n${USAGE}` })
        return yield* oauth.createApp({
          name: yield* required(flags, "name"),
          redirectUris,
          scopes: (yield* required(flags, "scopes")).split(/\s+/).filter((s) => s.length > 0),
          description: optional(flags, "description"),
          homepageUrl: optional(flags, "homepage-url"),
          logoUrl: optional(flags, "logo-url")
        })
      }
      case "app rotate-secret":
        return yield* oauth.rotateSecret(yield* required(flags, "client-id"))
      case "app disable":
        return yield* oauth.setDisabled(yield* required(flags, "client-id"), true)
      case "app enable":
        return yield* oauth.setDisabled(yield* required(flags, "client-id"), false)
      case "app revoke":
        return yield* oauth.revokeForUser(yield* required(flags, "client-id"), yield* uuidFlag(flags, "user"))
      case "signing-key rotate": {
        const key = yield* (yield* SigningKeys).rotate
        return { kid: key.kid, rotated: true }
      }
      default:
        return yield* new UsageError({ message: USAGE })
    }
  })

const canConnect = (port: number) =>
  Effect.async<boolean>((resume) => {
    const socket = connect(port, "127.0.0.1")
    socket.once("connect", () => {
      socket.end()
      resume(Effect.succeed(true))
    })
    socket.once("error", () => resume(Effect.succeed(false)))
  })

/** DATABASE_URL; else the embedded PostgreSQL a running server started; else that PostgreSQL, started now. */
const database = Layer.unwrapScoped(
  Effect.gen(function*() {
    const config = yield* AppConfig
    if (Option.isSome(config.databaseUrl)) return databaseLayer(config.databaseUrl.value, { maxConnections: 2 })
    const port = yield* runningEmbeddedPort(config.dataDir)
    if (port !== undefined && (yield* canConnect(port))) {
      return databaseLayer(Redacted.make(embeddedServerAt(port).url("postgres")), { maxConnections: 2 })
    }
    const server = yield* startEmbedded(config.dataDir)
    return databaseLayer(Redacted.make(server.url("postgres")), { maxConnections: 2 })
  })
)

const errorCode = (error: { readonly _tag: string }) =>
  error._tag === "UsageError" ? "usage" : error._tag === "NotFoundError" ? "not_found" : error._tag === "UnknownScope" ? "invalid_scope" : "failed"

const program = Effect.gen(function*() {
  yield* migrate
  return yield* command(process.argv.slice(2))
}).pipe(
  Effect.provide(Layer.mergeAll(AccessRepo.Default, OAuthRepo.Default, SigningKeys.Default)),
  Effect.provide(database),
  Effect.provide(AppConfigLive),
  Effect.provide(Logger.minimumLogLevel(LogLevel.None)),
  Effect.scoped
)

Effect.runPromiseExit(program).then((exit) => {
  if (exit._tag === "Success") {
    process.stdout.write(JSON.stringify(exit.value) + "\n")
    process.exit(0)
  }
  const failure = exit.cause._tag === "Fail" ? exit.cause.error : undefined
  const error = failure instanceof UnknownScope
    ? { code: "invalid_scope", message: failure.message }
    : failure instanceof AdminError
    ? { code: failure.code, message: failure.message }
    : failure !== undefined && "_tag" in failure
    ? { code: errorCode(failure), message: "message" in failure ? String(failure.message) : String(failure) }
    : { code: "failed", message: "The command failed; see the cause above" }
  if (error.code === "failed") process.stderr.write(String(exit.cause) + "\n")
  process.stderr.write(JSON.stringify({ error }) + "\n")
  process.exit(error.code === "usage" ? 2 : 1)
})
