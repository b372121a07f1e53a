/**
 * `leasehold table create` and `leasehold table check`.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as DynamoLockTable from "@leasehold/dynamodb/DynamoLockTable"
import type { LockConfigError, LockStoreError } from "@leasehold/lock/LockError"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as CliError from "./CliError.js"
import * as Connection from "./Connection.js"
import * as ExitCode from "./ExitCode.js"
import * as Help from "./Help.js"
import * as Run from "./internal/run.js"

/** A table helper's call on the resolved table, its failure as an operator message. */
const onTable = <A>(
  resolved: Connection.Connection,
  call: (options: DynamoLockTable.TableOptions) => Effect.Effect<A, LockStoreError | LockConfigError>
): Effect.Effect<A, CliError.CliError> =>
  Effect.mapError(call({ tableName: resolved.tableName, clientConfig: resolved.clientConfig }), Run.tableError)

const ttlNote = (ttl: DynamoLockTable.TtlStatus): string => {
  switch (ttl) {
    case "enabled":
      return `TTL on "${DynamoLockTable.ttlAttribute}": enabled`
    case "unsupported":
      return `TTL: not supported by this server (local emulators); idle lock rows stay until deleted`
    case "other-attribute":
      return `TTL: the table already expires items by another attribute, so idle lock rows will never be removed; ` +
        `give locks a table of their own`
  }
}

/**
 * `table create`: on-demand billing, TTL on `ttl`; a no-op on a table that is already right.
 *
 * @since 0.1.0
 * @category commands
 */
export const create = Command.make(
  "create",
  { connection: Connection.options },
  ({ connection }) =>
    Run.withConnection(connection, (resolved) =>
      Effect.gen(function*() {
        const result = yield* onTable(resolved, DynamoLockTable.createTable)
        yield* Console.log(
          result.created
            ? `created table "${result.tableName}" at ${resolved.location} (on-demand billing)`
            : `table "${result.tableName}" already exists at ${resolved.location} with the expected key schema`
        )
        yield* Console.log(ttlNote(result.ttl))
      }), { createLocalTable: false })
).pipe(Command.withDescription(Help.describe(
  "Create the lock table with on-demand billing and TTL on the \"ttl\" attribute, and wait until it is ACTIVE. " +
    "Does nothing (and exits 0) if the table exists with the expected key schema; exits 1 if the name is taken by " +
    "a table keyed differently.",
  [
    ["leasehold table create --table locks --region eu-west-1", "create the table \"locks\" in eu-west-1"],
    ["LEASEHOLD_TABLE=locks leasehold table create", "the same, with the table from the environment"],
    ["leasehold table create --table locks --endpoint http://127.0.0.1:8000", "on DynamoDB Local"]
  ]
)))

/**
 * `table check`: every problem of an existing table, one per line; exit 1 if there is any.
 *
 * @since 0.1.0
 * @category commands
 */
export const check = Command.make(
  "check",
  {
    connection: Connection.options,
    json: Options.boolean("json").pipe(Options.withDescription("Print the result as JSON.")),
    ignoreTtl: Options.boolean("ignore-ttl").pipe(
      Options.withDescription("Do not count TTL being off as a problem (local emulators have no TTL).")
    )
  },
  ({ connection, ignoreTtl, json }) =>
    Run.withConnection(connection, (resolved) =>
      Effect.gen(function*() {
        const found = yield* onTable(resolved, DynamoLockTable.checkTable)
        const problems = ignoreTtl ? found.filter((problem) => problem._tag !== "TtlDisabled") : found
        if (json) {
          yield* Console.log(JSON.stringify(
            {
              table: resolved.tableName,
              ok: problems.length === 0,
              problems: problems.map(({ _tag, message }) => ({ problem: _tag, message }))
            },
            null,
            2
          ))
        } else if (problems.length === 0) {
          yield* Console.log(`table "${resolved.tableName}" at ${resolved.location} is ready for locks`)
        } else {
          yield* Console.log(
            `table "${resolved.tableName}" at ${resolved.location} has ${problems.length} problem(s):\n` +
              problems.map((problem) => `  - ${problem._tag}: ${problem.message}`).join("\n")
          )
        }
        if (problems.length > 0) {
          return yield* new CliError.CliError({ exitCode: ExitCode.storeProblem, message: "" })
        }
      }))
).pipe(Command.withDescription(Help.describe(
  "Check an existing lock table: that it exists and is ACTIVE, has the key schema the store expects (partition " +
    "key \"key\", a string) and TTL on \"ttl\". Prints exactly what is wrong and exits 1 if anything is.",
  [
    ["leasehold table check --table locks", "check the table \"locks\""],
    ["leasehold table check --json | jq .problems", "the problems, for a script"],
    ["leasehold table check --endpoint http://127.0.0.1:8000 --ignore-ttl", "on an emulator without TTL"]
  ]
)))

/**
 * `table`: the parent of `create` and `check`.
 *
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make(
  "table",
  {},
  () => CliError.usage("name a table command: `leasehold table create` or `leasehold table check` (see --help)")
).pipe(
  Command.withDescription("Create or check the lock table."),
  Command.withSubcommands([create, check])
)
