/**
 * `leasehold inspect NAME`: one lock in full; `leasehold inspect --semaphore NAME`: one semaphore and its holders.
 *
 * @since 1.0.0
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Options from "@effect/cli/Options"
import * as Clock from "effect/Clock"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Connection from "./Connection.js"
import * as Help from "./Help.js"
import * as Lookup from "./internal/lookup.js"
import * as Run from "./internal/run.js"
import * as Render from "./Render.js"

/**
 * The positional lock name, shared with `release`.
 *
 * @since 1.0.0
 * @category args
 */
export const nameArg = Args.text({ name: "NAME" }).pipe(
  Args.withDescription("The lock name (with --semaphore, the semaphore name), as the program gave it."),
  Args.mapEffect((name) =>
    name === ""
      ? Effect.fail(HelpDoc.p("the lock name must not be empty: `leasehold list` shows the names in the table"))
      : Effect.succeed(name)
  )
)

/**
 * The flag that makes NAME a semaphore's, shared with `release`. A lock and a semaphore of the same name are two
 * records; the commands about one record say which kind they mean, and `list` and `watch` show both.
 *
 * @since 1.0.0
 * @category options
 */
export const semaphoreOption = Options.boolean("semaphore").pipe(
  Options.withDescription("NAME is a semaphore's (a semaphore and a lock of the same name are different records).")
)

/** Label and value lines, the labels padded to one width. */
const fields = (lines: ReadonlyArray<readonly [string, string]>): string => {
  const width = Math.max(...lines.map(([key]) => key.length))
  return lines.map(([key, value]) => `${key.padEnd(width)}  ${value}`).join("\n")
}

const describe = (lock: Render.LockView): string => {
  const lines: Array<[string, string]> = [["name", lock.name]]
  if (lock.held) {
    lines.push(["state", lock.expired ? "held, but the lease ran out (the holder stopped renewing?)" : "held"])
    lines.push(["holder", lock.holder ?? "?"])
    lines.push(["owner", lock.owner ?? "?"])
    lines.push(["fence", String(lock.fence)])
    lines.push(["lease", `${Render.duration(lock.leaseMs)}, until ${lock.leaseUntil} (${Render.remaining(lock)})`])
    if (lock.acquiredAt !== null && lock.ageMs !== null) {
      lines.push(["acquired", `${lock.acquiredAt} (${Render.duration(lock.ageMs)} ago)`])
    }
  } else {
    lines.push(["state", "free"])
    lines.push(["fence", `${lock.fence} (the next holder gets a higher one)`])
  }
  const text = fields(lines)
  if (lock.data === null) return text
  return `${text}\ndata\n${Render.data(lock.data).replace(/^/gm, "  ")}`
}

const describeSemaphore = (semaphore: Render.SemaphoreView): string => {
  const text = fields([
    ["semaphore", semaphore.name],
    ["permits", `${semaphore.used} of ${semaphore.limit} in use (${semaphore.available} free)`],
    ["fence", `${semaphore.fence} (the last issued; the next holder gets a higher one)`],
    ["holders", semaphore.holders.length === 0 ? "none" : String(semaphore.holders.length)]
  ])
  if (semaphore.holders.length === 0) return text
  const table = Render.columns(Render.permitHolderHeader, semaphore.holders.map(Render.permitHolderRow))
  const expired = semaphore.holders.some((holder) => holder.expired)
    ? "\n\nexpired: the holder stopped renewing (or its clock is off); the next acquirer that needs its permits " +
      "removes it"
    : ""
  const data = semaphore.holders.flatMap((holder) =>
    holder.data === null
      ? []
      : [`data of ${holder.holder} (fence ${holder.fence})\n${Render.data(holder.data).replace(/^/gm, "  ")}`]
  )
  return `${text}\n\n${table}${expired}${data.length === 0 ? "" : `\n\n${data.join("\n")}`}`
}

/**
 * @since 1.0.0
 * @category commands
 */
export const command = Command.make(
  "inspect",
  {
    connection: Connection.options,
    name: nameArg,
    semaphore: semaphoreOption,
    json: Options.boolean("json").pipe(
      Options.withDescription(
        "Print the lock (or semaphore) as JSON, with each data payload decoded as `dataJson` when it is JSON."
      )
    )
  },
  ({ connection, json, name, semaphore }) =>
    Run.withStore(connection, (store, table) =>
      Effect.gen(function*() {
        if (semaphore) {
          const record = yield* Lookup.semaphore(store, table, name)
          const view = Render.semaphoreView(record, yield* Clock.currentTimeMillis)
          return yield* Console.log(
            json
              ? JSON.stringify(
                {
                  ...view,
                  holders: view.holders.map((holder) => ({ ...holder, dataJson: Render.decodedData(holder.data) }))
                },
                null,
                2
              )
              : describeSemaphore(view)
          )
        }
        const record = yield* Lookup.lock(store, table, name)
        const lock = Render.view(record, yield* Clock.currentTimeMillis)
        yield* Console.log(
          json ? JSON.stringify({ ...lock, dataJson: Render.decodedData(lock.data) }, null, 2) : describe(lock)
        )
      }))
).pipe(Command.withDescription(Help.describe(
  "Show one lock in full: holder, owner, fence, lease and age, and its data payload (pretty-printed when it is " +
    "JSON). With --semaphore, one semaphore: its limit, the permits in use, and each holder (holder, owner, " +
    "permits, fence, lease until, whether it expired, data). Exits 3 if the table has no lock (or semaphore) of " +
    "that name.",
  [
    ["leasehold inspect orders/42 --table locks", "one lock"],
    ["leasehold inspect nightly-report --json | jq .fence", "its fencing token, for a script"],
    ["leasehold inspect --semaphore partner-api", "a semaphore and who holds its permits"]
  ]
)))
