/**
 * `leasehold list`: every lock with its holder, fence, where its lease stands and its age, and every semaphore with
 * its permits in use and their holders.
 *
 * @since 1.0.0
 */
import * as Command from "@effect/cli/Command"
import * as Clock from "effect/Clock"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Connection from "./Connection.js"
import type * as Help from "./Help.js"
import * as CountOption from "./internal/countOption.js"
import * as Flag from "./internal/flag.js"
import * as Run from "./internal/run.js"
import * as SkewFlag from "./internal/skewFlag.js"
import * as Render from "./Render.js"

const json = Flag.boolean({
  name: "json",
  description: "Print {table, now, locks: [...], semaphores: [...], cursor} as JSON (times in ms and ISO strings; " +
    "each lease's state as held, expiring or expired)."
})

const held = Flag.boolean({
  name: "held",
  description: "Only locks that have a holder, and semaphores with holders. A holder whose lease has run out is " +
    "still listed, as expiring or expired: its record stays until someone takes the lock over or releases it."
})

const expired = Flag.boolean({
  name: "expired",
  description: "Only locks whose holder's lease has run out (expiring or expired), and semaphores with such a " +
    "holder: the records of holders that stopped renewing."
})

const limit = CountOption.make("limit", "Read at most N locks and semaphores, then print the cursor to resume from.")

const cursor = Flag.text({
  name: "cursor",
  value: "CURSOR",
  description: "Resume a listing where an earlier --limit stopped (the cursor it printed)."
})

/**
 * What `leasehold list --help` says.
 *
 * @since 1.0.0
 * @category help
 */
export const help: Help.CommandHelp = {
  path: "list",
  usage: "[--held | --expired] [--json] [flags]",
  summary: "List the locks and semaphores of a family, with their holders.",
  description: "List the locks in the table: name, holder, fence, where the lease stands and how long the holder " +
    "has had it; then the semaphores: permits in use, the limit, and each holder with its permits. A lease shows " +
    "as \"12.3s left\" while it runs (by the holder's clock); as expiring once it has run out but by less than " +
    "--max-clock-skew, when no acquirer takes it over yet; then as \"expired 32.0s ago\", when the next acquirer " +
    "does. Released locks stay listed as (free): their row keeps the fence. Tables with a sort key work as they " +
    "are (the key schema is read from the table).",
  flags: [held.help, expired.help, json.help, limit.help, cursor.help, SkewFlag.flag.help],
  tableFlags: true,
  examples: [
    ["leasehold list --table locks", "every lock and semaphore"],
    ["leasehold list --held --json | jq -r '.locks[].name'", "the names of locks with a holder, for a script"],
    ["leasehold list --expired", "the locks and permits of holders that stopped renewing"],
    ["leasehold list --json | jq '.semaphores[] | {name, used, limit}'", "how full each semaphore is"],
    ["leasehold list --limit 50", "the first 50; the next page with --cursor"]
  ]
}

/**
 * @since 1.0.0
 * @category commands
 */
export const command = Command.make(
  "list",
  {
    connection: Connection.options,
    json: json.options,
    held: held.options,
    expired: expired.options,
    limit: limit.options,
    cursor: cursor.options,
    maxClockSkew: SkewFlag.flag.options
  },
  ({ connection, cursor, expired, held, json, limit, maxClockSkew }) =>
    Run.withTable(connection, (table) =>
      Effect.gen(function*() {
        const page = yield* Run.readItems(table, {
          limit: Option.getOrUndefined(limit),
          cursor: Option.getOrUndefined(cursor)
        })
        const now = yield* Clock.currentTimeMillis
        const all = Render.listing(page.items, now, maxClockSkew)
        const shown = expired ? Render.expired(all) : held ? Render.held(all) : all
        if (json) {
          return yield* Console.log(
            JSON.stringify(
              { table: table.tableName, now: new Date(now).toISOString(), ...shown, cursor: page.cursor ?? null },
              null,
              2
            )
          )
        }
        const which = expired ? "expired " : held ? "held " : ""
        yield* Console.log(
          Render.tables(
            shown,
            `no ${which}locks or semaphores in table "${table.tableName}"${Connection.family(table)}`
          )
        )
        if (page.cursor !== undefined) {
          yield* Console.error(`more locks and semaphores: continue with --cursor ${page.cursor}`)
        }
      }))
).pipe(Command.withDescription(help.summary))
