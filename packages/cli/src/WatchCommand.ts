/**
 * `leasehold watch`: a live table of locks and semaphores, and the changes between refreshes.
 *
 * @since 1.0.0
 */
import * as Command from "@effect/cli/Command"
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Options from "@effect/cli/Options"
import * as ValidationError from "@effect/cli/ValidationError"
import * as Clock from "effect/Clock"
import * as Console from "effect/Console"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Connection from "./Connection.js"
import type * as Help from "./Help.js"
import * as CountOption from "./internal/countOption.js"
import * as DurationText from "./internal/durationText.js"
import * as Flag from "./internal/flag.js"
import * as Run from "./internal/run.js"
import * as SkewFlag from "./internal/skewFlag.js"
import * as LockEvents from "./LockEvents.js"
import * as Render from "./Render.js"
import * as SemaphoreEvents from "./SemaphoreEvents.js"

/**
 * Between refreshes by default: often enough to see a default 30 s lease's renews, cheap enough (one Scan page per
 * refresh on a small table) to leave running.
 *
 * @since 1.0.0
 * @category constants
 */
export const defaultInterval = "2 seconds"

/** How many recent changes the terminal view keeps under the table. */
const recentEvents = 10

/**
 * "500ms", "2s", "1.5s", "1m", "2 seconds": a positive duration; a bare number is seconds.
 *
 * @since 1.0.0
 * @category parsing
 */
export const parseInterval = (input: string): Option.Option<Duration.Duration> => {
  const ms = DurationText.millis(input)
  return ms !== undefined && ms > 0 ? Option.some(Duration.millis(ms)) : Option.none()
}

const interval = Flag.map(
  Flag.text({
    name: "interval",
    value: "DURATION",
    description: `Time between refreshes, e.g. 500ms, 2s, 1m. Default: ${defaultInterval}.`
  }),
  Options.mapEffect((given) => {
    const text = Option.getOrElse(given, () => defaultInterval)
    return Option.match(parseInterval(text), {
      onNone: () =>
        Effect.fail(
          ValidationError.invalidValue(
            HelpDoc.p(`--interval "${text}" is not a positive duration: use e.g. 500ms, 2s or 1m`)
          )
        ),
      onSome: Effect.succeed
    })
  })
)

const count = CountOption.make("count", "Stop after N refreshes. Default: run until Ctrl-C.")

const plain = Flag.boolean({
  name: "plain",
  description: "Print plain lines (a snapshot, then one line per change) even on a terminal."
})

const clearScreen = "\x1b[H\x1b[2J"

const stamp = (now: number) => new Date(now).toISOString()

const byName = <A extends { readonly name: string }>(views: ReadonlyArray<A>): ReadonlyMap<string, A> =>
  new Map(views.map((view) => [view.name, view] as const))

/**
 * What `leasehold watch --help` says.
 *
 * @since 1.0.0
 * @category help
 */
export const help: Help.CommandHelp = {
  path: "watch",
  usage: "[--interval DURATION] [--count N] [--plain] [flags]",
  summary: "Watch the locks and semaphores live, with their changes.",
  description: "Watch the locks and semaphores live: on a terminal, tables refreshed every --interval with the " +
    "recent changes under them (acquisitions, releases, takeovers, hand-offs, leases running late or out; for a " +
    "semaphore, per holder of its permits). When stdout is not a terminal (or with --plain): one snapshot line per " +
    "lock and per semaphore, then one line per change. Runs until Ctrl-C, or --count refreshes.",
  flags: [interval.help, count.help, plain.help, SkewFlag.flag.help],
  tableFlags: true,
  examples: [
    ["leasehold watch --table locks", "the live view"],
    ["leasehold watch --interval 500ms --count 20 > changes.log", "ten seconds of changes, as lines"],
    [
      "leasehold watch --local",
      "try it out: starts an embedded server, prints its endpoint; run programs against it and watch them"
    ]
  ]
}

/**
 * @since 1.0.0
 * @category commands
 */
export const command = Command.make(
  "watch",
  {
    connection: Connection.options,
    interval: interval.options,
    count: count.options,
    plain: plain.options,
    maxClockSkew: SkewFlag.flag.options
  },
  ({ connection, count, interval, maxClockSkew, plain }) =>
    Run.withTable(connection, (table) =>
      Effect.gen(function*() {
        const terminal = !plain && process.stdout.isTTY === true
        if (table.localEndpoint !== undefined) {
          yield* Console.error(
            `leasehold: point programs at it with DYNAMODB_ENDPOINT=${table.localEndpoint} ` +
              `LEASEHOLD_TABLE=${table.tableName}`
          )
        }
        let previous: Render.Listing | undefined
        const events: Array<string> = []
        const refreshes = Option.getOrElse(count, () => Infinity)
        for (let refresh = 1; refresh <= refreshes; refresh++) {
          if (refresh > 1) yield* Effect.sleep(interval)
          const { items } = yield* Run.readItems(table)
          const now = yield* Clock.currentTimeMillis
          const { locks, semaphores } = Render.listing(items, now, maxClockSkew)
          const current: Render.Listing = {
            locks: [...locks].sort((a, b) => a.name.localeCompare(b.name)),
            semaphores: [...semaphores].sort((a, b) => a.name.localeCompare(b.name))
          }
          const changes = previous === undefined ? [] : [
            ...LockEvents.diff(byName(previous.locks), byName(current.locks)),
            ...SemaphoreEvents.diff(byName(previous.semaphores), byName(current.semaphores))
          ]
          if (terminal) {
            events.push(...changes.map((event) => `${stamp(now)}  ${event.text}`))
            events.splice(0, Math.max(0, events.length - recentEvents))
            yield* Console.log(
              clearScreen +
                `leasehold watch: table "${table.tableName}"${Connection.family(table)} at ${table.location}, ` +
                `every ${Duration.format(interval)} (Ctrl-C to stop)  ${stamp(now)}\n` +
                (table.localEndpoint === undefined
                  ? ""
                  : `embedded server: DYNAMODB_ENDPOINT=${table.localEndpoint} LEASEHOLD_TABLE=${table.tableName}\n`) +
                "\n" +
                Render.tables(current, "no locks or semaphores yet") +
                (events.length === 0 ? "" : `\n\nrecent changes:\n${events.join("\n")}`)
            )
          } else if (previous === undefined) {
            const lines = [
              ...current.locks.map(Render.lockLine),
              ...current.semaphores.map(Render.semaphoreLine)
            ]
            yield* Console.log(
              lines.length === 0
                ? `${stamp(now)} snapshot: no locks or semaphores in table "${table.tableName}"` +
                  Connection.family(table)
                : lines.map((line) => `${stamp(now)} snapshot ${line}`).join("\n")
            )
          } else {
            for (const event of changes) yield* Console.log(`${stamp(now)} ${event.text}`)
          }
          previous = current
        }
      }))
).pipe(Command.withDescription(help.summary))
