/**
 * `leasehold inspect NAME`: one lock in full; `leasehold inspect --semaphore NAME`: one semaphore and its holders.
 *
 * @since 1.0.0
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as HelpDoc from "@effect/cli/HelpDoc"
import type * as LockRecord from "@leasehold/core/record/LockRecord"
import * as LeaseSession from "@leasehold/core/session/LeaseSession"
import * as Clock from "effect/Clock"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Connection from "./Connection.js"
import type * as Help from "./Help.js"
import * as Flag from "./internal/flag.js"
import * as Lookup from "./internal/lookup.js"
import * as Run from "./internal/run.js"
import * as SkewFlag from "./internal/skewFlag.js"
import * as Render from "./Render.js"

const nameDescription = "The lock's name (with --semaphore, the semaphore's), as the program gave it; " +
  "`leasehold list` shows them."

/**
 * The positional name as `--help` lists it, shared with `release`.
 *
 * @since 1.0.0
 * @category help
 */
export const nameHelp: Help.Row = ["NAME", nameDescription]

/**
 * The positional lock name, shared with `release`.
 *
 * @since 1.0.0
 * @category args
 */
export const nameArg = Args.text({ name: "NAME" }).pipe(
  Args.withDescription(nameDescription),
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
export const semaphoreFlag = Flag.boolean({
  name: "semaphore",
  description: "NAME is a semaphore's or a read/write lock's (a read/write lock is kept as a semaphore whose " +
    "writer holds every permit; a semaphore and a lock of the same name are different records)."
})

const json = Flag.boolean({
  name: "json",
  description:
    "Print the lock (or semaphore) as JSON, with each data payload decoded as `dataJson` when it is JSON, and each " +
    "lease's state as held, expiring or expired."
})

/** Label and value lines, the labels padded to one width. */
const fields = (lines: ReadonlyArray<readonly [string, string]>): string => {
  const width = Math.max(...lines.map(([key]) => key.length))
  return lines.map(([key, value]) => `${key.padEnd(width)}  ${value}`).join("\n")
}

/** What the state of a lock's lease means, for `inspect`. */
const stateLine = (lock: Render.LockView, maxClockSkewMs: number): string => {
  const ago = Render.duration(-(lock.leaseRemainingMs ?? 0))
  switch (lock.state) {
    case "free":
      return "free"
    case "held":
      return "held"
    case "expiring":
      return `expiring: the lease ran out ${ago} ago (the holder stopped renewing, or its clock is behind); within ` +
        `the clock-skew bound (${Render.duration(maxClockSkewMs)}) no acquirer takes it over until ${lock.takeoverAt}`
    case "expired":
      if (lock.sessionEnded) return "its lease session ended; the next acquirer takes it over"
      return `expired: the lease ran out ${ago} ago (the holder stopped renewing?); the next acquirer takes it over`
  }
}

const describe = (lock: Render.LockView, maxClockSkewMs: number): string => {
  const lines: Array<[string, string]> = [["name", lock.name], ["state", stateLine(lock, maxClockSkewMs)]]
  if (lock.held) {
    lines.push(["holder", lock.holder ?? "?"])
    lines.push(["owner", lock.owner ?? "?"])
    lines.push(["fence", String(lock.fence)])
    if (lock.session !== null) lines.push(["session", `${lock.session} (the lock's lease is the session's)`])
    lines.push([
      "lease",
      lock.leaseUntil === null
        ? Render.lease(lock)
        : `${Render.duration(lock.leaseMs)}, until ${lock.leaseUntil} (${Render.lease(lock)})`
    ])
    if (lock.acquiredAt !== null && lock.ageMs !== null) {
      lines.push(["acquired", `${lock.acquiredAt} (${Render.duration(lock.ageMs)} ago)`])
    }
  } else {
    lines.push(["fence", `${lock.fence} (the next holder gets a higher one)`])
  }
  const text = fields(lines)
  if (lock.data === null) return text
  return `${text}\ndata\n${Render.data(lock.data).replace(/^/gm, "  ")}`
}

/** What a read/write lock's record holds: a writer, readers, or nobody. */
const readWriteKind = (semaphore: Render.SemaphoreView): string => {
  const readers = semaphore.holders.filter((holder) => holder.mode === "read").length
  const writing = semaphore.holders.some((holder) => holder.mode === "write")
  const held = writing
    ? "held by a writer"
    : readers > 0
    ? `held by ${readers} reader${readers === 1 ? "" : "s"}`
    : "free"
  return `read/write lock, ${held} (a reader holds 1 permit, a writer all ${semaphore.limit})`
}

const describeSemaphore = (semaphore: Render.SemaphoreView, maxClockSkewMs: number): string => {
  const reservation = semaphore.reservation
  const text = fields([
    ["semaphore", semaphore.name],
    ...(semaphore.readWrite ? [["kind", readWriteKind(semaphore)] as const] : []),
    ["permits", `${semaphore.used} of ${semaphore.limit} in use (${semaphore.available} free)`],
    ["fence", `${semaphore.fence} (the last issued; the next holder gets a higher one)`],
    ["holders", semaphore.holders.length === 0 ? "none" : String(semaphore.holders.length)],
    ...(reservation === null ? [] : [
      [
        "reserved",
        `by ${reservation.owner} for ${reservation.permits} permits, waiting since ${reservation.waitingSince}, ` +
        `keeping out who would not fit beside it from ${reservation.from} until ${reservation.until}`
      ] as const
    ])
  ])
  if (semaphore.holders.length === 0) return text
  const table = Render.columns(Render.permitHolderHeader, semaphore.holders.map(Render.permitHolderRow))
  const notes = [
    ...(semaphore.holders.some((holder) => holder.state === "expiring")
      ? [
        `expiring: the holder's lease ran out less than the clock-skew bound (${Render.duration(maxClockSkewMs)}) ` +
        "ago; its clock may be behind, and no acquirer removes it yet"
      ]
      : []),
    ...(semaphore.holders.some((holder) => holder.state === "expired")
      ? [
        "expired: the holder stopped renewing (or its clock is off); the next acquirer that needs its permits " +
        "removes it"
      ]
      : [])
  ]
  const data = semaphore.holders.flatMap((holder) =>
    holder.data === null
      ? []
      : [`data of ${holder.holder} (fence ${holder.fence})\n${Render.data(holder.data).replace(/^/gm, "  ")}`]
  )
  return `${text}\n\n${table}${notes.length === 0 ? "" : `\n\n${notes.join("\n")}`}` +
    (data.length === 0 ? "" : `\n\n${data.join("\n")}`)
}

/**
 * What `leasehold inspect --help` says.
 *
 * @since 1.0.0
 * @category help
 */
export const help: Help.CommandHelp = {
  path: "inspect",
  usage: "NAME [--semaphore] [--json] [flags]",
  summary: "Show one lock or semaphore in full.",
  description: "Show one lock in full: its state (free, held, expiring or expired: see --max-clock-skew), holder, " +
    "owner, fence, lease and age, and its data payload (pretty-printed when it is JSON). With --semaphore, one " +
    "semaphore: its limit, the permits in use, and each holder (holder, owner, permits, fence, lease until, where " +
    "its lease stands, data). Exits 3 if the table has no lock (or semaphore) of that name.",
  arguments: [nameHelp],
  flags: [semaphoreFlag.help, json.help, SkewFlag.flag.help],
  tableFlags: true,
  examples: [
    ["leasehold inspect orders/42 --table locks", "one lock"],
    ["leasehold inspect price-list --semaphore", "a semaphore or read/write lock, with each holder and its mode"],
    ["leasehold inspect nightly-report --json | jq .fence", "its fencing token, for a script"],
    ["leasehold inspect --semaphore partner-api", "a semaphore and who holds its permits"]
  ]
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
    semaphore: semaphoreFlag.options,
    json: json.options,
    maxClockSkew: SkewFlag.flag.options
  },
  ({ connection, json, maxClockSkew, name, semaphore }) =>
    Run.withStore(connection, (store, table) =>
      Effect.gen(function*() {
        if (semaphore) {
          const record = yield* Lookup.semaphore(store, table, name)
          // Holders under a lease session hold as long as their session: read each session's record once.
          const sessions = new Map<string, LockRecord.LockRecord | undefined>()
          for (const holder of record.holders) {
            const id = LeaseSession.sessionOf(holder)
            if (id === undefined || sessions.has(id)) continue
            sessions.set(id, Option.getOrUndefined(yield* store.inspect(LeaseSession.recordName(id))))
          }
          const view = Render.semaphoreView(record, yield* Clock.currentTimeMillis, maxClockSkew, sessions)
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
              : describeSemaphore(view, maxClockSkew)
          )
        }
        const record = yield* Lookup.lock(store, table, name)
        // A lock under a lease session is held as long as its session: its lease is the session's record's.
        const sessionId = LeaseSession.sessionOf(record)
        const session = sessionId === undefined
          ? undefined
          : { record: Option.getOrUndefined(yield* store.inspect(LeaseSession.recordName(sessionId))) }
        const lock = Render.view(record, yield* Clock.currentTimeMillis, maxClockSkew, session)
        yield* Console.log(
          json
            ? JSON.stringify({ ...lock, dataJson: Render.decodedData(lock.data) }, null, 2)
            : describe(lock, maxClockSkew)
        )
      }))
).pipe(Command.withDescription(help.summary))
