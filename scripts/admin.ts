/**
 * The operator command line: `npm run admin -- <command>`. Every command prints one JSON object on
 * stdout and exits 0; a failure prints `{"error":{"code","message"}}` on stderr and exits non-zero
 * (2 for a usage error, 1 otherwise). `--help` after any command word describes it.
 *
 *   org create --name NAME
 *   org update --id ORG [--owner-email E] [--default-tax-rate N] [--currency C]
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
 *   scopes
 *   import sales|payouts|client-documents --org ORG --file FILE   (FILE may be - for standard input)
 *   sale refund --org ORG --id ID --amount N [--reason R]
 *   sale void --org ORG --id ID --reason R
 *   contract advance --org ORG --id ID --to STATUS
 *
 * The words and flags are parsed by `effect/cli`: what it refuses (an unknown command or flag, a
 * missing or malformed value) is a usage error, printed with the command's help on stderr before the
 * error object. The help itself goes to stdout. A value that begins with "-" is written `--flag=VALUE`
 * (`--password=-x…`): after a space it would be read as flags.
 *
 * It works on DATABASE_URL; unset, on the embedded PostgreSQL that a running server started under
 * DATA_DIR, or, while no server runs, on that PostgreSQL started for the command. The database is
 * opened only once the command line parsed and the scopes named in it were checked, so `--help`,
 * `scopes` and a refused scope need none.
 */
import {
  checkScopes,
  Conflict,
  ContractStatuses,
  InvalidRequest,
  NotFound,
  OAUTH_ONLY_SCOPES,
  OrganizationSettingsUpdate,
  SCOPE_CATALOG,
  type ScopeSpelling,
  strict,
  Uuid
} from "@bizops/domain"
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
import { issuesOf } from "@bizops/server/Http/Envelope"
import { Contracts } from "@bizops/server/Contracts/Contracts"
import { ClientDocumentImports } from "@bizops/server/Imports/ClientDocuments"
import { ImportError, Imports } from "@bizops/server/Imports/Imports"
import { Sales } from "@bizops/server/Sales/Sales"
import { Outbox } from "@bizops/server/Webhooks/Outbox"
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { Cause, Console, Data, Effect, Layer, Option, Redacted, References, Result, Runtime, Schema } from "effect"
import { CliConfig, CliError, CliOutput, Command, Flag, GlobalFlag } from "effect/cli"
import { readFile } from "node:fs/promises"
import { connect } from "node:net"

class NotFoundError extends Data.TaggedError("NotFoundError")<{ readonly message: string }> {}

// ---- The database and the command's result -------------------------------------------------------

const canConnect = (port: number) =>
  Effect.callback<boolean>((resume) => {
    const socket = connect(port, "127.0.0.1")
    socket.once("connect", () => {
      socket.end()
      resume(Effect.succeed(true))
    })
    socket.once("error", () => resume(Effect.succeed(false)))
  })

/** DATABASE_URL; else the embedded PostgreSQL a running server started; else that PostgreSQL, started now. */
const database = Layer.unwrap(
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

const services = Layer.mergeAll(AccessRepo.layer, OAuthRepo.layer, SigningKeys.layer, Imports.layer, ClientDocumentImports.layer, Contracts.layer).pipe(
  Layer.provideMerge(Outbox.layer),
  Layer.provideMerge(database),
  Layer.provide(AppConfigLive)
)

/**
 * A command's work on the migrated database; its result is printed once the database is closed again
 * (the embedded PostgreSQL stopped when the command started it), so that stdout carries the one object
 * only when everything succeeded.
 */
const respond = <A, E>(work: Effect.Effect<A, E, AccessRepo | OAuthRepo | SigningKeys | Imports | ClientDocumentImports | Sales | Contracts>) =>
  Effect.andThen(migrate, work).pipe(
    Effect.provide(services),
    Effect.flatMap((result) => Console.log(JSON.stringify(result)))
  )

// ---- Flags: typed and checked while parsing, so a bad value is a usage error before any work -------------

const isUuid = Schema.is(Uuid)

const uuidFlag = (name: string, metavar: string, description: string) =>
  Flag.String(name).pipe(
    Flag.filter(isUuid, () => "a UUID"),
    Flag.withMetavar(metavar),
    Flag.withDescription(description)
  )

const text = (name: string, metavar: string, description: string) =>
  Flag.String(name).pipe(Flag.withMetavar(metavar), Flag.withDescription(description))

/** The scopes named in one value, separated by `separator`. */
const splitScopes = (value: string, separator: RegExp) => value.split(separator).filter((s) => s.length > 0)

/**
 * A command's scopes, checked against the spelling it takes before any database is opened. An unknown one
 * is `invalid_scope` (exit 1, as the repositories' own check answers), its message saying what each
 * unknown token most likely meant (the other spelling's equivalent, or the nearest scope), which spelling
 * is expected, and every valid scope: the refusal alone is enough to correct the command line. The message
 * carries them rather than a field of their own, so that the error object stays `{code, message}`.
 */
const checkedScopes = (spelling: ScopeSpelling, scopes: ReadonlyArray<string>) =>
  Effect.fromResult(checkScopes(spelling, scopes)).pipe(
    Effect.mapError(({ message }) => new UnknownScope(`${message} \`npm run admin -- scopes\` lists every scope in both spellings.`))
  )

/** Optional flags say so in their description: the help's flag table does not. */
const optionalText = (name: string, metavar: string, description: string) =>
  Flag.optional(text(name, metavar, `${description} (optional)`))

const clientId = text("client-id", "ID", "The app's client id")

// ---- Commands ----------------------------------------------------------------------------------------

const orgCreate = Command.make("create", {
  name: text("name", "NAME", "The organization's name (1 to 200 characters); its default business gets it too").pipe(
    Flag.filter((name) => name.trim().length > 0 && name.length <= 200, () => "1 to 200 characters")
  )
}, ({ name }) => respond(AccessRepo.use((access) => access.createOrganization(name)))).pipe(
  Command.withDescription("Create an organization and its default business. Prints {\"organizationId\",\"businessId\"}.")
)

/**
 * The settings named on the command line, decoded by the domain's schema before any database is opened:
 * a bad value is invalid_request naming the flag's setting. An empty owner email clears it.
 */
const settingsUpdate = (flags: { readonly currency: Option.Option<string>; readonly defaultTaxRate: Option.Option<string>; readonly ownerEmail: Option.Option<string> }) => {
  const input = {
    ...Option.match(flags.currency, { onNone: () => ({}), onSome: (currency) => ({ currency }) }),
    ...Option.match(flags.defaultTaxRate, { onNone: () => ({}), onSome: (rate) => ({ defaultTaxRate: rate.trim() === "" ? Number.NaN : Number(rate) }) }),
    ...Option.match(flags.ownerEmail, { onNone: () => ({}), onSome: (email) => ({ ownerEmail: email === "" ? null : email }) })
  }
  const decoded = Schema.decodeUnknownResult(OrganizationSettingsUpdate)(input, strict)
  return Result.isSuccess(decoded)
    ? Effect.succeed(decoded.success)
    : Effect.fail(new AdminError("invalid_request", issuesOf(decoded.failure.issue).map(({ path, message }) => `${path.join(".")} ${message}`).join("; ")))
}

const orgUpdate = Command.make("update", {
  id: uuidFlag("id", "ORG", "The organization"),
  ownerEmail: optionalText("owner-email", "E", "Where owner alerts go; an empty value clears it"),
  defaultTaxRate: optionalText("default-tax-rate", "N", "The tax rate (percent, 0 to 100) of clients without their own"),
  currency: optionalText("currency", "C", "The 3-letter currency of the records it creates from now on (USD until set)")
}, ({ id, ...flags }) =>
  Effect.andThen(settingsUpdate(flags), (update) =>
    respond(Effect.gen(function*() {
      const settings = yield* (yield* AccessRepo).updateOrganization(id, update)
      if (settings === undefined) return yield* new NotFoundError({ message: `No organization ${id}` })
      return settings
    })))).pipe(
    Command.withDescription(
      "Change an organization's settings; those not named stay. Records already created keep their currency. " +
        "Prints {\"organizationId\",\"currency\",\"defaultTaxRate\",\"ownerEmail\"}."
    )
  )

const keyCreate = Command.make("create", {
  org: uuidFlag("org", "ORG", "The organization the key acts for"),
  scopes: text("scopes", "SCOPES", "The key's scopes, spelled <resource>:<read|write> and separated by spaces or commas, e.g. \"clients:read clients:write\" (npm run admin -- scopes lists them all)").pipe(
    Flag.filterMap((value) => Option.liftPredicate(splitScopes(value, /[\s,]+/), (scopes) => scopes.length > 0), () => "at least one scope")
  ),
  name: optionalText("name", "N", "A name to tell the key by"),
  rateLimit: Flag.Int("rate-limit").pipe(
    Flag.filter((n) => n > 0, () => "a positive whole number"),
    Flag.withMetavar("N"),
    Flag.withDescription("Requests per hour (optional; default 1000)"),
    Flag.optional
  )
}, ({ org, scopes, name, rateLimit }) =>
  Effect.andThen(checkedScopes("apiKey", scopes), (scopes) =>
    respond(Effect.gen(function*() {
      const access = yield* AccessRepo
      if (!(yield* access.organizationExists(org))) return yield* new NotFoundError({ message: `No organization ${org}` })
      return yield* access.createKey({
        organizationId: org,
        scopes,
        name: Option.getOrUndefined(name),
        rateLimit: Option.getOrUndefined(rateLimit)
      })
    })))).pipe(
    Command.withDescription("Create an API key. Prints {\"id\",\"apiKey\",\"scopes\"}: the key is shown this once, only its hash is stored.")
  )

const keyRevoke = Command.make("revoke", {
  id: uuidFlag("id", "ID", "The key's id")
}, ({ id }) =>
  respond(Effect.gen(function*() {
    const access = yield* AccessRepo
    if (!(yield* access.revokeKey(id))) return yield* new NotFoundError({ message: `No API key ${id}` })
    return { id, revoked: true }
  }))).pipe(Command.withDescription("Revoke an API key. Prints {\"id\",\"revoked\":true}."))

const userCreate = Command.make("create", {
  org: uuidFlag("org", "ORG", "The organization the user belongs to"),
  email: text("email", "E", "The user's email, to sign in with"),
  password: text("password", "P", "The user's password (at least 8 characters)")
}, ({ org, email, password }) =>
  respond(OAuthRepo.use((oauth) => oauth.createUser({ organizationId: org, email, password })))).pipe(
    Command.withDescription("Create a user who can sign in to authorize apps. Prints {\"userId\"}.")
  )

const userAddOrg = Command.make("add-org", {
  user: uuidFlag("user", "U", "The user's id"),
  org: uuidFlag("org", "ORG", "The organization to add the user to")
}, ({ user, org }) => respond(OAuthRepo.use((oauth) => oauth.addUserToOrganization(user, org)))).pipe(
  Command.withDescription("Let a user act for one more organization. Prints {\"userId\",\"organizationId\"}.")
)

const appCreate = Command.make("create", {
  name: text("name", "N", "The app's name, shown to users when they authorize it"),
  redirectUris: text("redirect-uri", "URI", "Where the app receives codes: https, or http on loopback; repeat the flag for more").pipe(
    Flag.atLeast(1)
  ),
  scopes: text("scopes", "SCOPES", "The most the app may ask for, spelled <read|write>:<resource> (or offline_access, openid) and separated by spaces, e.g. \"read:clients offline_access\" (npm run admin -- scopes lists them all)").pipe(
    Flag.map((value) => splitScopes(value, /\s+/))
  ),
  description: optionalText("description", "D", "What the app does"),
  homepageUrl: optionalText("homepage-url", "U", "The app's home page"),
  logoUrl: optionalText("logo-url", "U", "The app's logo")
}, (input) =>
  Effect.andThen(checkedScopes("oauth", input.scopes), (scopes) =>
    respond(OAuthRepo.use((oauth) =>
      oauth.createApp({
        name: input.name,
        redirectUris: input.redirectUris,
        scopes,
        description: Option.getOrUndefined(input.description),
        homepageUrl: Option.getOrUndefined(input.homepageUrl),
        logoUrl: Option.getOrUndefined(input.logoUrl)
      }))))).pipe(
    Command.withDescription("Register an OAuth app. Prints {\"clientId\",\"clientSecret\"}: the secret is shown this once.")
  )

const appRotateSecret = Command.make("rotate-secret", { clientId }, ({ clientId }) =>
  respond(OAuthRepo.use((oauth) => oauth.rotateSecret(clientId)))).pipe(
    Command.withDescription("Give an app a new client secret (the old one stops working). Prints {\"clientId\",\"clientSecret\"}.")
  )

const appDisable = Command.make("disable", { clientId }, ({ clientId }) =>
  respond(OAuthRepo.use((oauth) => oauth.setDisabled(clientId, true)))).pipe(
    Command.withDescription("Disable an app and revoke all its grants for good. Prints {\"clientId\",\"disabled\":true}.")
  )

const appEnable = Command.make("enable", { clientId }, ({ clientId }) =>
  respond(OAuthRepo.use((oauth) => oauth.setDisabled(clientId, false)))).pipe(
    Command.withDescription("Enable a disabled app again: new authorizations only, its old grants stay revoked. Prints {\"clientId\",\"disabled\":false}.")
  )

const appRevoke = Command.make("revoke", {
  clientId,
  user: uuidFlag("user", "USER", "The user revoking the app")
}, ({ clientId, user }) => respond(OAuthRepo.use((oauth) => oauth.revokeForUser(clientId, user)))).pipe(
  Command.withDescription("Revoke an app for one user: their grants end, its refresh tokens are deleted. Prints {\"clientId\",\"userId\",\"revoked\":true}.")
)

const signingKeyRotate = Command.make("rotate", {}, () =>
  respond(Effect.gen(function*() {
    const key = yield* (yield* SigningKeys).rotate
    return { kid: key.kid, rotated: true }
  }))).pipe(
    Command.withDescription("Retire the current access-token signing key and make a new one. Prints {\"kid\",\"rotated\":true}.")
  )

/** Pure: the catalog is part of the program, so it needs no database and cannot disagree with the scope checks. */
const scopes = Command.make("scopes", {}, () =>
  Console.log(JSON.stringify({ scopes: SCOPE_CATALOG, oauthOnly: OAUTH_ONLY_SCOPES }))).pipe(
    Command.withDescription(
      "List every scope in both spellings: API keys take <resource>:<read|write> (clients:read), OAuth apps " +
        "<read|write>:<resource> (read:clients) and the OAuth-only scopes. Prints " +
        "{\"scopes\":[{\"resource\",\"access\",\"apiKey\",\"oauth\"}],\"oauthOnly\":[…]}."
    ),
    Command.withShortDescription("Every scope, in the API-key and the OAuth spelling")
  )

/** A file's text, or standard input's for "-". */
const readText = (file: string) =>
  Effect.tryPromise({
    try: async () => {
      if (file !== "-") return readFile(file, "utf8")
      const chunks: Array<Buffer> = []
      for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk))
      return Buffer.concat(chunks).toString("utf8")
    },
    catch: (cause) => new AdminError("invalid_import", `Cannot read ${file === "-" ? "standard input" : file}: ${cause instanceof Error ? cause.message : String(cause)}`)
  })

/** The file's JSON, read and parsed before any database is opened: a file that is not JSON imports nothing. */
const readRecords = (file: string) =>
  Effect.flatMap(readText(file), (text) =>
    Effect.try({
      try: (): unknown => JSON.parse(text),
      catch: (cause) =>
        new ImportError([{ index: -1, path: [], message: `the file is not JSON (${cause instanceof Error ? cause.message : String(cause)})` }])
    }))

const importKind = (kind: "sales" | "payouts" | "client-documents", what: string) =>
  Command.make(kind, {
    org: uuidFlag("org", "ORG", "The organization the records belong to"),
    file: text("file", "FILE", "A JSON array of records; - reads standard input")
  }, ({ org, file }) =>
    Effect.andThen(readRecords(file), (records) =>
      respond(Effect.gen(function*() {
        const access = yield* AccessRepo
        if (!(yield* access.organizationExists(org))) return yield* new NotFoundError({ message: `No organization ${org}` })
        if (kind === "client-documents") return yield* ClientDocumentImports.use((imports) => imports.importClientDocuments(org, records))
        const imports = yield* Imports
        return yield* (kind === "sales" ? imports.importSales(org, records) : imports.importPayouts(org, records))
      })))).pipe(
    Command.withDescription(
      `Import ${what} from a JSON array of records, all or nothing. ` +
        "Prints {\"created\",\"updated\",\"unchanged\",\"ids\"}; an invalid file prints invalid_import with every issue."
    )
  )

const saleFlags = {
  org: uuidFlag("org", "ORG", "The organization the sale belongs to"),
  id: uuidFlag("id", "ID", "The sale's id")
}

const saleRefund = Command.make("refund", {
  ...saleFlags,
  amount: text("amount", "N", "The amount to refund in the sale's currency (12.50), at most what is left of its total"),
  reason: optionalText("reason", "R", "Why: kept as the refund payment's notes")
}, ({ org, id, amount, reason }) =>
  respond(Sales.use((sales) => sales.refund({ organizationId: org }, id, amount.trim() === "" ? Number.NaN : Number(amount), Option.getOrNull(reason))))).pipe(
    Command.withDescription(
      "Refund part or all of a sale: a refund payment (negative, naming the sale's payment), the books reversed for that part, " +
        "status partially-refunded or refunded. Prints {\"sale\",\"payment\"}."
    )
  )

const saleVoid = Command.make("void", {
  ...saleFlags,
  reason: text("reason", "R", "Why the sale is voided (required)")
}, ({ org, id, reason }) => respond(Sales.use((sales) => sales.void({ organizationId: org }, id, reason)))).pipe(
  Command.withDescription("Void a sale: status voided, its books reversed in full; it is never revenue and accepts no refund. Prints {\"sale\"}.")
)

const contractAdvance = Command.make("advance", {
  org: uuidFlag("org", "ORG", "The organization the contract belongs to"),
  id: uuidFlag("id", "ID", "The contract's id"),
  to: Flag.Literals("to", ContractStatuses).pipe(Flag.withMetavar("STATUS"), Flag.withDescription("The status to move the contract to"))
}, ({ org, id, to }) => respond(Contracts.use((contracts) => contracts.advance({ organizationId: org }, id, to)))).pipe(
  Command.withDescription(
    "Move a contract as the signing flow would: draft -> sent | voided; sent -> viewed | expired | voided; viewed -> active | expired | voided; " +
      "active -> completed | expired | voided. Sending issues a document version, voiding voids it, active sets signedDate. Prints {\"contract\"}."
  )
)

const admin = Command.make("admin").pipe(
  Command.withDescription("The operator command line: npm run admin -- <command> [flags]. Prints one JSON object."),
  Command.withSubcommands([
    Command.make("org").pipe(Command.withDescription("Organizations"), Command.withSubcommands([orgCreate, orgUpdate])),
    Command.make("key").pipe(Command.withDescription("API keys"), Command.withSubcommands([keyCreate, keyRevoke])),
    Command.make("user").pipe(Command.withDescription("Users who sign in to authorize OAuth apps"), Command.withSubcommands([userCreate, userAddOrg])),
    Command.make("app").pipe(
      Command.withDescription("OAuth apps"),
      Command.withSubcommands([appCreate, appRotateSecret, appDisable, appEnable, appRevoke])
    ),
    Command.make("signing-key").pipe(Command.withDescription("The keys that sign access tokens"), Command.withSubcommands([signingKeyRotate])),
    scopes,
    Command.make("sale").pipe(
      Command.withDescription("Sales after their import: refunds and voids"),
      Command.withSubcommands([saleRefund, saleVoid])
    ),
    Command.make("contract").pipe(
      Command.withDescription("Contracts: the moves of the signing flow, which runs outside the API"),
      Command.withSubcommands([contractAdvance])
    ),
    Command.make("import").pipe(
      Command.withDescription("Records that arrive from outside the API (sales, payouts, client documents)"),
      Command.withSubcommands([
        importKind("sales", "sales (upserted by externalId; only notes may change once imported)"),
        importKind("payouts", "payouts (upserted by processorPayoutId; paymentIds get the payout's id)"),
        importKind("client-documents", "client documents, smart-files (upserted by externalId; a document that becomes sent issues a version)")
      ])
    )
  ])
)

// ---- Output: help on stdout; a refused command line on stderr, then the error object -------------------

const formatterFor = (stream: NodeJS.WriteStream) =>
  CliOutput.defaultFormatter({ colors: stream.isTTY === true && !process.env.NO_COLOR })

/**
 * `--help` prints the help on stdout. A command line that names no command, or one the CLI refuses,
 * prints the help of the command it got to on stderr: stdout stays empty on every failure.
 */
const presenter: CliOutput.Presenter = {
  present: (event) => {
    switch (event._tag) {
      case "Help":
        return event.reason === "Requested"
          ? Console.log(formatterFor(process.stdout).formatHelpDoc(event.helpDoc))
          : Console.error(formatterFor(process.stderr).formatHelpDoc(event.helpDoc))
      case "InvalidInvocation":
        return Console.error(formatterFor(process.stderr).formatHelpDoc(event.helpDoc))
      case "Version":
        return Console.log(formatterFor(process.stdout).formatVersion(event.name, event.version))
    }
  }
}

interface ErrorObject {
  readonly code: string
  readonly message: string
  /** invalid_import: every problem of every record ({index, path, message}). */
  readonly issues?: ReadonlyArray<unknown>
}

/** The error object of a failed run; undefined when the failure is not one the command line expects. */
const errorObject = (failure: unknown): ErrorObject | undefined => {
  if (CliError.isCliError(failure)) {
    // The parser's errors arrive inside ShowHelp; one without errors is a command line that stopped
    // at a group (`admin`, `admin key`).
    if (failure._tag !== "ShowHelp") return { code: "usage", message: failure.message }
    const message = failure.errors.length > 0
      ? failure.errors.map((error) => error.message).join("; ")
      : `Name a command: ${failure.commandPath.join(" ")} <command> (see --help)`
    return { code: "usage", message }
  }
  if (failure instanceof UnknownScope) return { code: "invalid_scope", message: failure.message }
  if (failure instanceof ImportError) return { code: failure.code, message: failure.message, issues: failure.issues }
  if (failure instanceof AdminError) return { code: failure.code, message: failure.message }
  if (failure instanceof NotFoundError) return { code: "not_found", message: failure.message }
  // A domain rule's refusal, as the API would answer it.
  if (failure instanceof InvalidRequest) return { code: "invalid_request", message: failure.message }
  if (failure instanceof Conflict) return { code: "conflict", message: failure.message }
  if (failure instanceof NotFound) return { code: "not_found", message: failure.message }
  return undefined
}

/** The run's end, its error object already printed: the runtime neither reports it again nor picks another code. */
class Exited extends Data.TaggedError("Exited")<{ readonly code: number }> {
  override readonly [Runtime.errorExitCode] = this.code
  override readonly [Runtime.errorReported] = false
}

const program = Command.run(admin, { version: "1.0.0-dev" }).pipe(
  Effect.catchCause((cause) =>
    Effect.gen(function*() {
      // Ctrl-C: the scopes are closed (an embedded PostgreSQL started for the command is stopped); exit 130.
      if (Cause.hasInterruptsOnly(cause)) return yield* Effect.interrupt
      const failure = Cause.findErrorOption(cause)
      const known = Option.isSome(failure) ? errorObject(failure.value) : undefined
      const error = known ?? { code: "failed", message: "The command failed; see the cause above" }
      if (known === undefined) yield* Console.error(Cause.pretty(cause))
      yield* Console.error(JSON.stringify({ error }))
      return yield* new Exited({ code: error.code === "usage" ? 2 : 1 })
    })
  ),
  Effect.provideService(References.MinimumLogLevel, "None"),
  // --help only: no --version, --wizard, --completions or --log-level (the commands log nothing).
  Effect.provide(Layer.mergeAll(
    NodeServices.layer,
    CliConfig.layer({ builtIns: [GlobalFlag.Help] }),
    CliOutput.layerPresenter(presenter)
  ))
)

/**
 * Exits as soon as the run ends, as the v3 script did: a handle left open (a pool's socket) never holds it.
 * Only once stdout and stderr have taken everything written: on a pipe their writes are asynchronous, and
 * exiting at once cut a large result (an import's 5,000 ids) short.
 */
const flushed = (stream: NodeJS.WriteStream) => new Promise<void>((done) => stream.write("", () => done()))

NodeRuntime.runMain(program, { teardown: (exit, onExit) => Runtime.defaultTeardown(exit, (code) => {
  onExit(code)
  void Promise.all([flushed(process.stdout), flushed(process.stderr)]).finally(() => process.exit(code))
}) })
