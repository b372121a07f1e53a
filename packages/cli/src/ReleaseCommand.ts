/**
 * `leasehold release NAME --force`: take a lock away from its holder; with `--semaphore --owner OWNER`, take one
 * holder's permits of a semaphore.
 *
 * @since 1.0.0
 */
import * as Command from "@effect/cli/Command"
import * as Prompt from "@effect/cli/Prompt"
import type * as LockRecord from "@leasehold/core/record/LockRecord"
import type * as SemaphoreRecord from "@leasehold/core/record/SemaphoreRecord"
import type { LockStoreError } from "@leasehold/lock/LockError"
import type * as LockStore from "@leasehold/lock/LockStore"
import * as Clock from "effect/Clock"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as CliError from "./CliError.js"
import * as Connection from "./Connection.js"
import type * as Help from "./Help.js"
import * as InspectCommand from "./InspectCommand.js"
import * as Flag from "./internal/flag.js"
import * as Lookup from "./internal/lookup.js"
import * as Run from "./internal/run.js"
import * as SkewFlag from "./internal/skewFlag.js"
import * as Render from "./Render.js"

const who = (lease: {
  readonly holder: string | null
  readonly owner: string | null
  readonly fence: number
  readonly state: Render.LeaseState
  readonly leaseRemainingMs: number | null
  readonly takeoverInMs: number | null
}) => `${lease.holder ?? "?"} (owner ${lease.owner ?? "?"}, fence ${lease.fence}, lease ${Render.lease(lease)})`

const permits = (n: number) => `${n} permit${n === 1 ? "" : "s"}`

/**
 * Whether a failed release write may have been applied: no answer came that says, or the store could not tell from
 * the one that did (an absent `mayHaveApplied` counts as "may", as `LockStoreError` says).
 */
const mayHaveApplied = (error: LockStoreError) => error.mayHaveApplied !== false

/**
 * The end of a release whose write may or may not have been applied: the store's reason, and where things stand now,
 * read again (`now` says it; `inspect` is the command that shows it, should the read fail too), with the exit code of
 * an unknown outcome.
 */
const outcomeUnknown = <A>(options: {
  readonly what: string
  readonly inspect: string
  readonly error: LockStoreError
  readonly read: Effect.Effect<A, CliError.CliError | LockStoreError>
  readonly now: (current: A) => string
}) =>
  Effect.flatMap(Effect.either(options.read), (current) =>
    Effect.fail(CliError.unknown(
      `outcome unknown: the release of ${options.what} may have been applied, and no answer tells whether it was ` +
        `(${options.error.message}); ` +
        (Either.isRight(current)
          ? options.now(current.right)
          : `reading it again failed too (${current.left.message}): \`${options.inspect}\` shows where it stands`)
    )))

/** Whether someone can answer a prompt: a prompt on a pipe would hang a script or read garbage. */
const interactive = Effect.sync(() => process.stdin.isTTY === true && process.stdout.isTTY === true)

/**
 * Asks before a force release unless `--yes`: `question` on a terminal, declined (or Ctrl-C) is a cancellation;
 * without a terminal, a usage error, since nobody can answer.
 */
const confirm = (options: {
  readonly yes: boolean
  readonly what: string
  readonly question: string
  readonly cancelled: string
}) =>
  Effect.gen(function*() {
    if (options.yes) return
    if (!(yield* interactive)) {
      return yield* CliError.usage(
        `not releasing ${options.what} without confirmation, and stdin is not a terminal: pass --yes`
      )
    }
    const confirmed = yield* Prompt.confirm({ message: options.question, initial: false }).pipe(
      Effect.catchTag("QuitException", () => Effect.succeed(false))
    )
    if (!confirmed) return yield* CliError.cancelled(options.cancelled)
  })

const owner = Flag.text({
  name: "owner",
  value: "OWNER",
  description: "With --semaphore: the owner id of the holder whose permits to release (`inspect --semaphore` shows it)."
})

const force = Flag.boolean({
  name: "force",
  description: "Required: release the lock (or the holder's permits) whoever holds it (holders release their own)."
})

const yes = Flag.boolean({
  name: "yes",
  alias: "y",
  description: "Do not ask for confirmation (required when stdin is not a terminal)."
})

const json = Flag.boolean({ name: "json", description: "Print the removed holder as JSON." })

/**
 * What `leasehold release --help` says.
 *
 * @since 1.0.0
 * @category help
 */
export const help: Help.CommandHelp = {
  path: "release",
  usage: "NAME --force [--semaphore --owner OWNER] [--yes] [flags]",
  summary: "Force-release a stuck lock, or a dead holder's permits of a semaphore.",
  description: "Force-release a lock: clear the holder it shows (only that one: if the lock changed hands " +
    "meanwhile, nothing is released), keeping the fence so the next holder gets a higher one. The holder finds out " +
    "at its next renew (LockLost \"freed\") and its critical section is interrupted; until then it may still act, " +
    "so downstream systems should check fencing tokens. With --semaphore and --owner: remove that one holder of the " +
    "semaphore's permits (a dead process's, say), with a write conditional on its owner, fence and permits as " +
    "shown; it finds out at its next renew too. Asks for confirmation unless --yes. Prints the holder it removed. " +
    "Exits 3 if the lock is not held, or the holder is gone or changed; exits 5 if the release's answer was lost " +
    "and whether it removed the holder can not be told (the message says where the lock stands now).",
  arguments: [InspectCommand.nameHelp],
  flags: [InspectCommand.semaphoreFlag.help, owner.help, force.help, yes.help, json.help, SkewFlag.flag.help],
  tableFlags: true,
  examples: [
    ["leasehold release orders/42 --force", "asks, then releases"],
    ["leasehold release orders/42 --force --yes --json", "no prompt, for a script"],
    ["leasehold release partner-api --semaphore --owner 3f2a... --force", "free one holder's permits"]
  ]
}

/**
 * @since 1.0.0
 * @category commands
 */
export const command = Command.make(
  "release",
  {
    connection: Connection.options,
    name: InspectCommand.nameArg,
    semaphore: InspectCommand.semaphoreFlag.options,
    owner: owner.options,
    force: force.options,
    yes: yes.options,
    json: json.options,
    maxClockSkew: SkewFlag.flag.options
  },
  ({ connection, force, json, maxClockSkew, name, owner, semaphore, yes }) =>
    Effect.gen(function*() {
      if (Option.isSome(owner) && !semaphore) {
        return yield* CliError.usage(
          `--owner picks a holder of a semaphore's permits: add --semaphore (a lock has one holder, and release ` +
            `--force takes it away whoever it is)`
        )
      }
      if (!force) {
        return yield* CliError.usage(
          semaphore
            ? `release --semaphore takes permits of "${name}" away from their holder; pass --force to say you mean ` +
              `that (a program gives its permits back by ending its scope)`
            : `release takes "${name}" away from whoever holds it; pass --force to say you mean that ` +
              `(a program releases its own locks by ending its scope)`
        )
      }
      return yield* Run.withStore(connection, (store, table) =>
        semaphore
          ? releasePermits(store, table, { name, owner: Option.getOrUndefined(owner), yes, json, maxClockSkew })
          : releaseLock(store, table, { name, yes, json, maxClockSkew }))
    })
).pipe(Command.withDescription(help.summary))

const releaseLock = (
  store: LockStore.LockStore,
  table: Connection.Table,
  options: { readonly name: string; readonly yes: boolean; readonly json: boolean; readonly maxClockSkew: number }
) =>
  Effect.gen(function*() {
    const { json, maxClockSkew, name, yes } = options
    const view = (record: LockRecord.LockRecord, now: number) => Render.view(record, now, maxClockSkew)
    const seen = view(yield* Lookup.lock(store, table, name), yield* Clock.currentTimeMillis)
    if (!seen.held) {
      return yield* CliError.notFound(`lock "${name}" is not held (fence ${seen.fence}): nothing to release`)
    }
    yield* confirm({
      yes,
      what: `"${name}" (held by ${who(seen)})`,
      question: `Force-release "${name}", held by ${who(seen)}? It learns at its next renew that it lost the lock.`,
      cancelled: `cancelled: "${name}" was not released`
    })
    // Only the holder that was confirmed: a release that lands after another process acquired frees nothing.
    const removed = yield* store.forceRelease(name, { owner: seen.owner!, fence: seen.fence }).pipe(
      Effect.catchIf(mayHaveApplied, (error) =>
        outcomeUnknown({
          what: `"${name}" (held by ${who(seen)})`,
          inspect: `leasehold inspect ${Lookup.shellWord(name)}`,
          error,
          read: Effect.zipWith(Lookup.lock(store, table, name), Clock.currentTimeMillis, view),
          now: (now: Render.LockView) =>
            !now.held
              ? `the lock is free now (fence ${now.fence}): that holder is gone, removed by this release or ` +
                `released by itself`
              : now.owner === seen.owner && now.fence === seen.fence
              ? `it is still held by ${who(now)}: run the command again to release it`
              : `it is held now by ${who(now)}, and that holder is gone, removed by this release or before it: run ` +
                `the command again to release the new holder`
        }))
    )
    if (Option.isNone(removed)) {
      const now = view(yield* Lookup.lock(store, table, name), yield* Clock.currentTimeMillis)
      return yield* CliError.notFound(
        now.held
          ? `lock "${name}" changed hands since the confirmation (was ${who(seen)}, now ${who(now)}): not released; ` +
            `run the command again to release the new holder`
          : `lock "${name}" was released by its holder in the meantime: nothing to do`
      )
    }
    const lock = view(removed.value, yield* Clock.currentTimeMillis)
    yield* Console.log(
      json
        ? JSON.stringify({ released: true, removed: lock }, null, 2)
        : `released "${name}": removed holder ${who(lock)}`
    )
  })

const releasePermits = (
  store: LockStore.LockStore,
  table: Connection.Table,
  options: {
    readonly name: string
    readonly owner: string | undefined
    readonly yes: boolean
    readonly json: boolean
    readonly maxClockSkew: number
  }
) =>
  Effect.gen(function*() {
    const { json, maxClockSkew, name, owner, yes } = options
    const view = (record: SemaphoreRecord.SemaphoreRecord, now: number) =>
      Render.semaphoreView(record, now, maxClockSkew)
    const seen = view(yield* Lookup.semaphore(store, table, name), yield* Clock.currentTimeMillis)
    const holders = seen.holders.map((holder) => `${who(holder)} with ${permits(holder.permits)}`).join("; ")
    if (seen.holders.length === 0) {
      return yield* CliError.notFound(`semaphore "${name}" has no holders (fence ${seen.fence}): nothing to release`)
    }
    if (owner === undefined) {
      return yield* CliError.usage(
        `name the holder whose permits of semaphore "${name}" to release with --owner; its holders: ${holders}`
      )
    }
    const holder = seen.holders.find((holder) => holder.owner === owner)
    if (holder === undefined) {
      return yield* CliError.notFound(
        `semaphore "${name}" has no holder with owner ${owner}: nothing to release; its holders: ${holders}`
      )
    }
    const what = `${permits(holder.permits)} of semaphore "${name}"`
    yield* confirm({
      yes,
      what: `${what} (held by ${who(holder)})`,
      question: `Force-release ${what}, held by ${who(holder)}? It learns at its next renew that it lost them.`,
      cancelled: `cancelled: the permits of "${name}" were not released`
    })
    // Conditional on the holder as shown: a holder that renewed since is still this one; one that is gone is not
    // replaced by anybody this write could remove.
    const result = yield* store.releasePermits({ name, owner, fence: holder.fence, permits: holder.permits }).pipe(
      Effect.catchIf(mayHaveApplied, (error) =>
        outcomeUnknown({
          what: `${what} (held by ${who(holder)})`,
          inspect: `leasehold inspect --semaphore ${Lookup.shellWord(name)}`,
          error,
          read: Effect.zipWith(Lookup.semaphore(store, table, name), Clock.currentTimeMillis, view),
          now: (now: Render.SemaphoreView) => {
            const still = now.holders.find((current) => current.owner === owner && current.fence === holder.fence)
            return still === undefined
              ? "that holder is gone now, removed by this release or gone by itself (given back, or removed by an " +
                "acquirer after its lease ran out)"
              : `that holder still holds them (${who(still)}): run the command again to release them`
          }
        }))
    )
    if (result._tag !== "Released") {
      return yield* CliError.notFound(
        `the permits of ${who(holder)} of semaphore "${name}" were released in the meantime (given back, or ` +
          `removed by an acquirer after their lease ran out): nothing to do`
      )
    }
    yield* Console.log(
      json
        ? JSON.stringify({ released: true, semaphore: name, removed: holder }, null, 2)
        : `released ${what}: removed holder ${who(holder)}`
    )
  })
