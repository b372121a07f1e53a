/**
 * `leasehold inspect NAME`: one lock in full.
 *
 * @since 0.1.0
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Options from "@effect/cli/Options"
import * as Clock from "effect/Clock"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as CliError from "./CliError.js"
import * as Connection from "./Connection.js"
import * as Help from "./Help.js"
import * as Run from "./internal/run.js"
import * as Render from "./Render.js"

/**
 * The positional lock name, shared with `release`.
 *
 * @since 0.1.0
 * @category args
 */
export const nameArg = Args.text({ name: "NAME" }).pipe(
  Args.withDescription("The lock name, as the program gave it."),
  Args.mapEffect((name) =>
    name === ""
      ? Effect.fail(HelpDoc.p("the lock name must not be empty: `leasehold list` shows the names in the table"))
      : Effect.succeed(name)
  )
)

/**
 * The message for a name the table has no record of.
 *
 * @since 0.1.0
 * @category errors
 */
export const notFound = (name: string, connection: Connection.Connection): CliError.CliError =>
  CliError.notFound(
    `no lock named "${name}" in table "${connection.tableName}"` +
      (connection.prefix === undefined ? "" : ` (prefix "${connection.prefix}")`) +
      `: \`leasehold list\` shows the names there (they are case-sensitive; check --prefix)`
  )

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
  const width = Math.max(...lines.map(([key]) => key.length))
  const text = lines.map(([key, value]) => `${key.padEnd(width)}  ${value}`).join("\n")
  if (lock.data === null) return text
  return `${text}\ndata\n${Render.data(lock.data).replace(/^/gm, "  ")}`
}

/**
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make(
  "inspect",
  {
    connection: Connection.options,
    name: nameArg,
    json: Options.boolean("json").pipe(
      Options.withDescription("Print the lock as JSON, with the data payload decoded as `dataJson` when it is JSON.")
    )
  },
  ({ connection, json, name }) =>
    Run.withStore(connection, (store, resolved) =>
      Effect.gen(function*() {
        const record = yield* store.inspect(name)
        if (Option.isNone(record)) return yield* notFound(name, resolved)
        const lock = Render.view(record.value, yield* Clock.currentTimeMillis)
        yield* Console.log(
          json ? JSON.stringify({ ...lock, dataJson: Render.decodedData(lock.data) }, null, 2) : describe(lock)
        )
      }))
).pipe(Command.withDescription(Help.describe(
  "Show one lock in full: holder, owner, fence, lease and age, and its data payload (pretty-printed when it is " +
    "JSON). Exits 3 if the table has no lock of that name.",
  [
    ["leasehold inspect orders/42 --table locks", "one lock"],
    ["leasehold inspect nightly-report --json | jq .fence", "its fencing token, for a script"]
  ]
)))
