/**
 * `Lock.withLocks`: several locks taken together, all or none, one after another in the one order every process takes
 * them in (`@leasehold/core/acquire/AcquireOrder`), so that processes asking for overlapping sets never deadlock. The
 * section runs under all of them, in a fiber that the end of any interrupts. `wait` bounds the whole: each lock may
 * wait what the ones before it left. Whatever was taken is given back, last first, when the section ends or when a
 * lock can not be taken; a lock taken first and lost while a later one was waited for fails the call with its
 * `LockLost`, and the section never runs. A name the fiber already holds is re-entered, as `withLock` re-enters it.
 *
 * @internal
 */
import * as AcquireBound from "@leasehold/core/acquire/AcquireBound"
import * as AcquireOrder from "@leasehold/core/acquire/AcquireOrder"
import { defaultHolder } from "@leasehold/core/record/Owner"
import * as Effect from "effect/Effect"
import { dual } from "effect/Function"
import type { Lease } from "../../Lease.js"
import type * as Lock from "../../Lock.js"
import { LockConfigError, LockLost, type LockNotAcquired, type LockStoreError } from "../../LockError.js"
import { LockStore } from "../../LockStore.js"
import * as EffectLine from "../effectLine.js"
import { isSection, runSectionUnder, sectionOf } from "../lease/section.js"
import { LockDefaults } from "../options/defaults.js"
import * as Options from "../options/options.js"
import { monotonicMillis } from "../process/clock.js"
import * as HeldLeases from "../process/heldLeases.js"
import { acquireKept, type Acquisition } from "./lock.js"
import * as TakeTogether from "./takeTogether.js"

/** A section: a program, or a function of the leases it runs under that makes it. */
type Section<A, E, R> = Effect.Effect<A, E, R> | ((leases: ReadonlyArray<Lease>) => Effect.Effect<A, E, R>)

/** The names as given, checked: an iterable of strings, at least one, each a name the store can key. */
const checkedNames = (names: unknown): Effect.Effect<ReadonlyArray<string>, LockConfigError, LockStore> =>
  Effect.gen(function*() {
    const problem = AcquireOrder.namesProblem(names)
    if (problem !== undefined) return yield* new LockConfigError({ option: "names", message: problem })
    const given = [...(names as Iterable<string>)]
    const store = yield* LockStore
    // Every name before any lock is taken: a bad one fails the call with nothing to give back.
    for (const name of new Set(given)) yield* Options.validateName(name, store)
    return given
  })

/** Why a lease taken first ended before the section could run: its loss, or its release by an outer acquisition. */
const lostBefore = (lease: Lease): Effect.Effect<never, LockLost> =>
  Effect.flatMap(lease.status, (status) =>
    Effect.fail(
      status._tag === "Lost"
        ? status.error
        : new LockLost({ name: lease.name, owner: lease.owner, fence: lease.fence, reason: "released", by: undefined })
    ))

/** The wait left to the next lock, as an option: what the locks before it left of the whole. */
const waitLeft = (waitUntil: number) =>
  Effect.map(monotonicMillis, (now) => {
    const left = AcquireOrder.waitLeftMs(waitUntil, now)
    // Whole milliseconds as a number: a zero `Duration` is refused as what Effect makes of a negative one.
    return left === Infinity ? "forever" as const : Math.ceil(left)
  })

const withLocksSection = <A, E, R>(
  names: Iterable<string>,
  section: Section<A, E, R>,
  withLocksOptions: Lock.WithLocksOptions | undefined
): Effect.Effect<A, E | LockNotAcquired | LockLost | LockStoreError | LockConfigError, R | LockStore> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.gen(function*() {
      const { transaction, ...options } = withLocksOptions ?? {}
      const given = yield* checkedNames(names)
      yield* Effect.annotateCurrentSpan("lock.names", AcquireOrder.order(given).join(","))
      const resolved = yield* Options.fromCheck(Options.resolveCheck(yield* LockDefaults, options, defaultHolder))
      const waitUntil = AcquireBound.waitUntil(yield* monotonicMillis, resolved.waitMs)
      const taken: Array<Acquisition> = []
      const giveBack = Effect.suspend(() =>
        Effect.forEach(
          [...taken].reverse(),
          (acquisition) => acquisition._tag === "Acquired" ? acquisition.keeper.release : Effect.void,
          { discard: true }
        )
      )
      const ordered = AcquireOrder.order(given)
      // Free locks in one store call, when asked for and possible; else, or when that fails, one at a time.
      const together = transaction === true
        ? yield* TakeTogether.attempt({
          store: yield* LockStore,
          names: ordered,
          options: resolved,
          restore,
          waitUntil
        })
        : undefined
      if (together !== undefined) taken.push(...together)
      for (const name of together === undefined ? ordered : []) {
        const wait = yield* waitLeft(waitUntil)
        taken.push(
          yield* EffectLine.onErrorMasked(acquireKept(name, { ...options, wait }, restore, undefined), giveBack)
        )
      }
      // A lock taken first may be lost while a later one is waited for: the section does not run without it.
      const ended = taken.find((acquisition) => !acquisition.entry.isLive())
      if (ended !== undefined) {
        yield* giveBack
        return yield* lostBefore(ended.entry.lease as Lease)
      }
      const byName = new Map(taken.map((acquisition) => [acquisition.entry.name, acquisition.entry.lease as Lease]))
      const leases = given.map((name) => byName.get(name)!)
      // The section's fiber is inside every lease it holds, for re-entry; a re-entered one it is inside already.
      const entered = taken.reduce(
        (program, acquisition) =>
          acquisition._tag === "Acquired" ? HeldLeases.enter(acquisition.entry)(program) : program,
        sectionOf(section, leases)
      )
      const under = taken.map((acquisition) => ({
        entry: acquisition.entry,
        role: acquisition._tag === "Acquired" ? "holder" as const : "borrower" as const
      }))
      return yield* EffectLine.ensuringMasked(runSectionUnder(under, restore(entered), restore), giveBack)
    })
  ).pipe(EffectLine.withSpan("Lock.withLocks", { attributes: {} }))

/** @internal */
export const withLocks: typeof Lock.withLocks = dual(
  // Data-first when the second argument is the section: withLocks(names, self, options?); pipeable when it is the
  // options or nothing: withLocks(names, options?).
  (args) => isSection(args[1]),
  <A, E, R>(
    first: Iterable<string> | Section<A, E, R>,
    second: Section<A, E, R> | Iterable<string>,
    options?: Lock.WithLocksOptions
  ) =>
    // The names come first in both forms, so `dual` hands the pipeable form's program over as the first argument.
    isSection(first)
      ? withLocksSection(second as Iterable<string>, first as Section<A, E, R>, options)
      : withLocksSection(first as Iterable<string>, second as Section<A, E, R>, options)
)
