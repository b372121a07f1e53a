/**
 * `leasehold list`: every lock with its holder, fence, lease remaining and age.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Clock from "effect/Clock"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as CliError from "./CliError.js"
import * as Connection from "./Connection.js"
import * as Help from "./Help.js"
import * as CountOption from "./internal/countOption.js"
import * as Run from "./internal/run.js"
import * as Render from "./Render.js"

/**
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make(
  "list",
  {
    connection: Connection.options,
    json: Options.boolean("json").pipe(
      Options.withDescription("Print {table, locks: [...], cursor} as JSON (times in ms and ISO strings).")
    ),
    held: Options.boolean("held").pipe(Options.withDescription("Only locks that someone holds.")),
    limit: CountOption.make("limit", "Read at most this many locks, then print the cursor to resume from."),
    cursor: Options.text("cursor").pipe(
      Options.withDescription("Resume a listing where an earlier --limit stopped."),
      Options.optional
    )
  },
  ({ connection, cursor, held, json, limit }) =>
    Run.withStore(connection, (store, resolved) =>
      Effect.gen(function*() {
        const page = yield* Run.readLocks(store, {
          limit: Option.getOrUndefined(limit),
          cursor: Option.getOrUndefined(cursor)
        }).pipe(
          // A cursor the store can not read was mistyped or comes from another table: the operator's to fix.
          Effect.catchIf(
            (error) => Option.isSome(cursor) && !error.retryable && /cursor/.test(error.message),
            (error) => CliError.usage(`--cursor: ${error.message}`)
          )
        )
        const now = yield* Clock.currentTimeMillis
        const locks = page.records.map((record) => Render.view(record, now)).filter((lock) => !held || lock.held)
        if (json) {
          return yield* Console.log(
            JSON.stringify(
              { table: resolved.tableName, now: new Date(now).toISOString(), locks, cursor: page.cursor ?? null },
              null,
              2
            )
          )
        }
        yield* Console.log(
          locks.length === 0
            ? `no ${held ? "held " : ""}locks in table "${resolved.tableName}"`
            : Render.columns(Render.lockHeader, locks.map(Render.lockRow))
        )
        if (page.cursor !== undefined) {
          yield* Console.error(`more locks: continue with --cursor ${page.cursor}`)
        }
      }))
).pipe(Command.withDescription(Help.describe(
  "List the locks in the table: name, holder, fence, lease remaining (by the holder's clock) and how long the " +
    "holder has had it. Released locks stay listed as (free): their row keeps the fence.",
  [
    ["leasehold list --table locks", "every lock"],
    ["leasehold list --held --json | jq -r '.locks[].name'", "the names of held locks, for a script"],
    ["leasehold list --limit 50", "the first 50; the next page with --cursor"]
  ]
)))
