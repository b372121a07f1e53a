/**
 * `leasehold table create` and `leasehold table check`.
 *
 * @since 1.0.0
 */
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb"
import * as Command from "@effect/cli/Command"
import * as StoreOptions from "@leasehold/core/dynamodb/StoreOptions"
import * as TableDescription from "@leasehold/core/dynamodb/TableDescription"
import type * as DynamoLockTable from "@leasehold/dynamodb/DynamoLockTable"
import type { LockConfigError, LockStoreError } from "@leasehold/lock/LockError"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as CliError from "./CliError.js"
import * as Connection from "./Connection.js"
import * as ExitCode from "./ExitCode.js"
import type * as Help from "./Help.js"
import * as Flag from "./internal/flag.js"
import * as LoadDynamo from "./internal/loadDynamo.js"
import * as Run from "./internal/run.js"

/** The key attributes of a table, as the store's options name them. */
interface Keys {
  readonly partitionKey: string
  readonly sortKey: string | undefined
}

/**
 * A table helper's call on the resolved table, through the command's client; its failure as an operator message.
 * `helper` picks the helper from the table module, which is loaded with the SDK.
 */
const onTable = <A>(
  table: { readonly connection: Connection.Connection; readonly client: DynamoDBClient },
  keys: Partial<Keys>,
  helper: (
    tables: typeof DynamoLockTable
  ) => (options: DynamoLockTable.TableOptions) => Effect.Effect<A, LockStoreError | LockConfigError>
): Effect.Effect<A, CliError.CliError> =>
  Effect.flatMap(LoadDynamo.load, (dynamo) =>
    Effect.mapError(
      helper(dynamo.DynamoLockTable)({
        tableName: table.connection.tableName,
        client: table.client,
        ...(keys.partitionKey === undefined ? {} : { partitionKey: keys.partitionKey }),
        ...(keys.sortKey === undefined ? {} : { sortKey: keys.sortKey })
      }),
      Run.tableError
    ))

/** The resolved table and one client for all of a command's requests. */
const withClient = (connection: Connection.Connection) =>
  Effect.map(Connection.makeClient(connection), (client) => ({ connection, client }))

const partitionKey = Flag.text({
  name: "partition-key",
  value: "ATTRIBUTE",
  description: "The partition key attribute (DynamoLockStore's `partitionKey`). " +
    `Default: "${StoreOptions.defaultPartitionKey}".`
})

const sortKey = Flag.text({
  name: "sort-key",
  value: "ATTRIBUTE",
  description: "A sort key attribute (DynamoLockStore's `sortKey`): each family of locks is then one partition, " +
    "listed with a Query. Default: none."
})

/** `--partition-key` and `--sort-key`, shared by both table commands. */
const keyOptions = { partitionKey: partitionKey.options, sortKey: sortKey.options }

const describeKeys = (keys: Keys): string =>
  keys.sortKey === undefined
    ? `partition key "${keys.partitionKey}"`
    : `partition key "${keys.partitionKey}", sort key "${keys.sortKey}"`

/** What a store on a table keyed so must be given, for the operator to copy into its options. */
const storeOptions = (keys: Keys): string => {
  const options = [
    ...(keys.partitionKey === StoreOptions.defaultPartitionKey ? [] : [`partitionKey: "${keys.partitionKey}"`]),
    ...(keys.sortKey === undefined ? [] : [`sortKey: "${keys.sortKey}"`])
  ]
  return options.length === 0 ? "" : `; stores on it need { ${options.join(", ")} }`
}

const ttlNote = (ttl: DynamoLockTable.TtlStatus): string => {
  switch (ttl) {
    case "enabled":
      return `TTL on "${TableDescription.ttlAttribute}": enabled`
    case "unsupported":
      return `TTL: not supported by this server (local emulators); idle lock rows stay until deleted`
    case "other-attribute":
      return `TTL: the table already expires items by another attribute, so idle lock rows will never be removed; ` +
        `give locks a table of their own`
  }
}

/**
 * What `leasehold table create --help` says.
 *
 * @since 1.0.0
 * @category help
 */
export const createHelp: Help.CommandHelp = {
  path: "table create",
  usage: "[--partition-key ATTRIBUTE] [--sort-key ATTRIBUTE] [flags]",
  summary: "Create the lock table (on-demand billing, TTL on \"ttl\"); a no-op if it is right.",
  description: "Create the lock table with on-demand billing and TTL on the \"ttl\" attribute, and wait until it " +
    "is ACTIVE. Does nothing (and exits 0) if the table exists with the expected key schema; exits 1 if the name is " +
    "taken by a table keyed differently. --sort-key makes a table where each family of locks (--prefix) is one " +
    "partition.",
  flags: [partitionKey.help, sortKey.help],
  tableFlags: true,
  examples: [
    ["leasehold table create --table locks --region eu-west-1", "create the table \"locks\" in eu-west-1"],
    ["LEASEHOLD_TABLE=locks leasehold table create", "the same, with the table from the environment"],
    ["leasehold table create --table locks --endpoint http://127.0.0.1:8000", "on DynamoDB Local"],
    ["leasehold table create --table locks --sort-key name", "for stores with { sortKey: \"name\" }"]
  ]
}

/**
 * `table create`: on-demand billing, TTL on `ttl`; a no-op on a table that is already right.
 *
 * @since 1.0.0
 * @category commands
 */
export const create = Command.make(
  "create",
  { connection: Connection.options, ...keyOptions },
  ({ connection, partitionKey, sortKey }) =>
    Run.withConnection(connection, (resolved) =>
      Effect.gen(function*() {
        const keys: Keys = {
          partitionKey: Option.getOrElse(partitionKey, () => StoreOptions.defaultPartitionKey),
          sortKey: Option.getOrUndefined(sortKey)
        }
        const result = yield* onTable(yield* withClient(resolved), keys, (tables) => tables.createTable)
        yield* Console.log(
          (result.created
            ? `created table "${result.tableName}" at ${resolved.location} (on-demand billing, ${describeKeys(keys)})`
            : `table "${result.tableName}" already exists at ${resolved.location} with the expected key schema ` +
              `(${describeKeys(keys)})`) + storeOptions(keys)
        )
        yield* Console.log(ttlNote(result.ttl))
      }), { createLocalTable: false })
).pipe(Command.withDescription(createHelp.summary))

/** A condition worth knowing that is not a problem: it does not fail the check. */
interface Warning {
  readonly _tag: "TtlUnsupported"
  readonly message: string
}

/**
 * The key attributes to check against: those given as flags, else those the table has if a lock store can use them.
 * A missing or unusable table is checked against the defaults, which `checkTable` reports as missing, or as keyed
 * differently with the key schema it has.
 */
const expectedKeys = (
  table: Effect.Effect.Success<ReturnType<typeof withClient>>,
  flags: { readonly [K in keyof Keys]: Option.Option<string> }
) =>
  Effect.gen(function*() {
    if (Option.isSome(flags.partitionKey) || Option.isSome(flags.sortKey)) {
      return {
        partitionKey: Option.getOrElse(flags.partitionKey, () => StoreOptions.defaultPartitionKey),
        sortKey: Option.getOrUndefined(flags.sortKey)
      } satisfies Keys
    }
    const found = yield* onTable(table, {}, (tables) => tables.describeKeys)
    return found._tag === "Usable"
      ? { partitionKey: found.partitionKey, sortKey: found.sortKey } satisfies Keys
      : { partitionKey: StoreOptions.defaultPartitionKey, sortKey: undefined } satisfies Keys
  })

const checkJson = Flag.boolean({
  name: "json",
  description: "Print the result as JSON: {table, ok, keys, problems: [...], warnings: [...]}."
})

const ignoreTtl = Flag.boolean({
  name: "ignore-ttl",
  description:
    "Do not count TTL being off as a problem (a server without TTL, such as dynalite, is only a warning anyway)."
})

/**
 * What `leasehold table check --help` says.
 *
 * @since 1.0.0
 * @category help
 */
export const checkHelp: Help.CommandHelp = {
  path: "table check",
  usage: "[--partition-key ATTRIBUTE] [--sort-key ATTRIBUTE] [--ignore-ttl] [--json] [flags]",
  summary: "Check the lock table: each problem on a line of its own, exit 1 if there is any.",
  description: "Check an existing lock table: that it exists and is ACTIVE, has a key schema a store can use (the " +
    "one given by --partition-key and --sort-key, or else whichever it has: a String partition key and optionally " +
    "a String sort key) and TTL on \"ttl\". Prints exactly what is wrong and exits 1 if anything is. A server " +
    "without TTL (dynalite) is a warning, not a problem; a DynamoDB table with TTL off is a problem unless " +
    "--ignore-ttl.",
  flags: [partitionKey.help, sortKey.help, ignoreTtl.help, checkJson.help],
  tableFlags: true,
  examples: [
    ["leasehold table check --table locks", "check the table \"locks\""],
    ["leasehold table check --json | jq .problems", "the problems, for a script"],
    ["leasehold table check --table locks --sort-key name", "check it is right for stores with { sortKey: \"name\" }"],
    ["leasehold table check --ignore-ttl", "accept a table whose TTL is off"]
  ]
}

/**
 * `table check`: every problem of an existing table, one per line; exit 1 if there is any.
 *
 * @since 1.0.0
 * @category commands
 */
export const check = Command.make(
  "check",
  {
    connection: Connection.options,
    ...keyOptions,
    json: checkJson.options,
    ignoreTtl: ignoreTtl.options
  },
  ({ connection, ignoreTtl, json, partitionKey, sortKey }) =>
    Run.withConnection(connection, (resolved) =>
      Effect.gen(function*() {
        const table = yield* withClient(resolved)
        const keys = yield* expectedKeys(table, { partitionKey, sortKey })
        const found = yield* onTable(table, keys, (tables) => tables.checkTable)
        const ttlOff = found.some((problem) => problem._tag === "TtlDisabled")
        // checkTable can not tell a table whose TTL is off from a server that has none (nothing could turn it on):
        // only the first is a problem.
        const unsupported = ttlOff && !ignoreTtl &&
          (yield* onTable(table, {}, (tables) => tables.describeTtlState)) === "unsupported"
        const problems = ignoreTtl || unsupported
          ? found.filter((problem) => problem._tag !== "TtlDisabled")
          : found
        const warnings: ReadonlyArray<Warning> = unsupported
          ? [{ _tag: "TtlUnsupported", message: ttlNote("unsupported") }]
          : []
        if (json) {
          yield* Console.log(JSON.stringify(
            {
              table: resolved.tableName,
              ok: problems.length === 0,
              keys: { partitionKey: keys.partitionKey, sortKey: keys.sortKey ?? null },
              problems: problems.map(({ _tag, message }) => ({ problem: _tag, message })),
              warnings: warnings.map(({ _tag, message }) => ({ warning: _tag, message }))
            },
            null,
            2
          ))
        } else {
          yield* Console.log(
            (problems.length === 0
              ? `table "${resolved.tableName}" at ${resolved.location} is ready for locks (${describeKeys(keys)})` +
                storeOptions(keys)
              : `table "${resolved.tableName}" at ${resolved.location} has ${problems.length} problem(s):\n` +
                problems.map((problem) => `  - ${problem._tag}: ${problem.message}`).join("\n")) +
              warnings.map((warning) => `\nwarning: ${warning.message}`).join("")
          )
        }
        if (problems.length > 0) {
          return yield* new CliError.CliError({ exitCode: ExitCode.storeProblem, message: "" })
        }
      }))
).pipe(Command.withDescription(checkHelp.summary))

/**
 * What `leasehold table --help` says.
 *
 * @since 1.0.0
 * @category help
 */
export const help: Help.CommandHelp = {
  path: "table",
  usage: "<create | check> [flags]",
  summary: "Create or check the lock table.",
  description: "Create the lock table, or check one: `leasehold table create --help` and `leasehold table check " +
    "--help` show their flags.",
  commands: [["create", createHelp.summary], ["check", checkHelp.summary]],
  flags: [],
  tableFlags: false,
  examples: [
    ["leasehold table create --table locks --region eu-west-1", "create the table \"locks\" in eu-west-1"],
    ["leasehold table check --table locks", "check it"]
  ]
}

/**
 * `table`: the parent of `create` and `check`.
 *
 * @since 1.0.0
 * @category commands
 */
export const command = Command.make(
  "table",
  {},
  () => CliError.usage("name a table command: `leasehold table create` or `leasehold table check` (see --help)")
).pipe(
  Command.withDescription(help.summary),
  Command.withSubcommands([create, check])
)
