/**
 * `leasehold list`: every lock with its holder, fence, lease remaining and age, and every semaphore with its permits
 * in use and their holders.
 *
 * @since 1.0.0
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Clock from "effect/Clock"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Connection from "./Connection.js"
import * as Help from "./Help.js"
import * as CountOption from "./internal/countOption.js"
import * as Run from "./internal/run.js"
import * as Render from "./Render.js"

/**
 * @since 1.0.0
 * @category commands
 */
export const command = Command.make(
  "list",
  {
    connection: Connection.options,
    json: Options.boolean("json").pipe(
      Options.withDescription(
        "Print {table, locks: [...], semaphores: [...], cursor} as JSON (times in ms and ISO strings)."
      )
    ),
    held: Options.boolean("held").pipe(
      Options.withDescription("Only locks that someone holds, and semaphores with holders.")
    ),
    limit: CountOption.make(
      "limit",
      "Read at most this many locks and semaphores, then print the cursor to resume from."
    ),
    cursor: Options.text("cursor").pipe(
      Options.withDescription("Resume a listing where an earlier --limit stopped."),
      Options.optional
    )
  },
  ({ connection, cursor, held, json, limit }) =>
    Run.withTable(connection, (table) =>
      Effect.gen(function*() {
        const page = yield* Run.readItems(table, {
          limit: Option.getOrUndefined(limit),
          cursor: Option.getOrUndefined(cursor)
        })
        const now = yield* Clock.currentTimeMillis
        const all = Render.listing(page.items, now)
        const shown: Render.Listing = held
          ? {
            locks: all.locks.filter((lock) => lock.held),
            semaphores: all.semaphores.filter((semaphore) => semaphore.holders.length > 0)
          }
          : all
        if (json) {
          return yield* Console.log(
            JSON.stringify(
              { table: table.tableName, now: new Date(now).toISOString(), ...shown, cursor: page.cursor ?? null },
              null,
              2
            )
          )
        }
        yield* Console.log(
          Render.tables(
            shown,
            `no ${held ? "held " : ""}locks or semaphores in table "${table.tableName}"${Connection.family(table)}`
          )
        )
        if (page.cursor !== undefined) {
          yield* Console.error(`more locks and semaphores: continue with --cursor ${page.cursor}`)
        }
      }))
).pipe(Command.withDescription(Help.describe(
  "List the locks in the table: name, holder, fence, lease remaining (by the holder's clock) and how long the " +
    "holder has had it; then the semaphores: permits in use, the limit, and each holder with its permits. Released " +
    "locks stay listed as (free): their row keeps the fence. Tables with a sort key work as they are (the key " +
    "schema is read from the table).",
  [
    ["leasehold list --table locks", "every lock and semaphore"],
    ["leasehold list --held --json | jq -r '.locks[].name'", "the names of held locks, for a script"],
    ["leasehold list --json | jq '.semaphores[] | {name, used, limit}'", "how full each semaphore is"],
    ["leasehold list --limit 50", "the first 50; the next page with --cursor"]
  ]
)))
