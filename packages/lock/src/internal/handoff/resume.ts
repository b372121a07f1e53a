/**
 * `handOff`, `resume` and `withResumed`: a lease handed off by one process goes on in another. The resume is one
 * conditional write, the store's renew (on the hand-off's owner and fence) that also moves the lease to a new owner
 * id, and then the lease is kept as an acquired one is: the same keeper, the process's queue for the name, re-entry,
 * and a section the end of the lease interrupts.
 *
 * - A hand-off whose `leaseUntil` has passed on this process's clock is refused as expired, with no write; one
 *   whose owner or holder has no UTF-8 form (a lone surrogate) is refused as malformed, with no write.
 * - The new owner makes a hand-off single-use: a second resume of it (a duplicated message, a retried invocation), and
 *   any write of the handing-off process still on its way, find the new owner and change nothing.
 * - A renew that finds another owner, or none, is a loss by steal. A store error after the write may have applied
 *   releases the new owner's lease in the background (nobody else knows its owner id), and the hand-off is spent.
 * - The local deadline counts from just before the resuming write was sent, as for an acquire.
 * - The process's queue: a resumed lease is held in the store already, so it never waits behind a fiber of this
 *   process that is acquiring the name (that fiber waits for this very lease, as any other process does). It becomes
 *   the head if nobody is, and hands the name on when it ends; otherwise it is kept beside the head.
 *
 * @internal
 */
import * as LeaseDeadline from "@leasehold/core/lease/LeaseDeadline"
import * as LeaseLoss from "@leasehold/core/lease/LeaseLoss"
import * as Resume from "@leasehold/core/lease/Resume"
import * as OptionCheck from "@leasehold/core/options/OptionCheck"
import type { LockRecord } from "@leasehold/core/record/LockRecord"
import { defaultHolder, random as randomOwner } from "@leasehold/core/record/Owner"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { dual } from "effect/Function"
import type * as Scope from "effect/Scope"
import type { Lease } from "../../Lease.js"
import * as LeaseHandoff from "../../LeaseHandoff.js"
import type * as Lock from "../../Lock.js"
import type { LockOptions } from "../../Lock.js"
import { LockConfigError, LockLost, type LockStoreError } from "../../LockError.js"
import { LockStore } from "../../LockStore.js"
import * as EffectLine from "../effectLine.js"
import { giveBack } from "../lease/giveBack.js"
import * as Keeper from "../lease/keeper.js"
import * as LeaseStore from "../lease/leaseStore.js"
import { runSection } from "../lease/section.js"
import { LockDefaults } from "../options/defaults.js"
import * as Options from "../options/options.js"
import * as Background from "../process/background.js"
import { monotonicMillis } from "../process/clock.js"
import * as HeldLeases from "../process/heldLeases.js"
import * as LeaseUsers from "../process/leaseUsers.js"
import * as LocalQueue from "../process/localQueue.js"
import { queuesOf } from "../process/processLocal.js"

type Restore = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>

const currentFiber = EffectLine.withFiber((fiber) => Effect.succeed(fiber))

/** @internal */
export const handOff = (lease: Lease): Effect.Effect<LeaseHandoff.LeaseHandoff, LockLost> =>
  Effect.suspend(() =>
    Keeper.handOff(lease) ??
      EffectLine.dieMessage("Lock.handOff takes a lease that Lock.acquire or Lock.resume made")
  )

const decodeHandoff = EffectLine.decodeUnknownEffect(LeaseHandoff.schema)

const checkHandoff = (input: unknown): Effect.Effect<LeaseHandoff.LeaseHandoff, LockConfigError> =>
  Effect.flatMap(
    Effect.mapError(decodeHandoff(input), (error) =>
      new LockConfigError({
        option: "handoff",
        message:
          `not a lease hand-off (make one with Lock.handOff, and decode it with LeaseHandoff.schema): ${error.message}`
      })),
    (handoff) => {
      const checked = Resume.checkOwnerAndHolder(handoff)
      return checked._tag === "Ok"
        ? Effect.succeed(checked.value)
        : Effect.fail(new LockConfigError({ option: "handoff", message: checked.message }))
    }
  )

/**
 * The options of a resumed lease: the lease duration is the hand-off's (given, it must be the same), the rest as an
 * acquire resolves them, from the per-call options, then the app-wide defaults.
 */
const resolveOptions = (
  defaults: LockOptions,
  options: Lock.ResumeOptions | undefined,
  handoff: LeaseHandoff.LeaseHandoff
): OptionCheck.OptionCheck<Options.Resolved> =>
  Options.flatMapCheck(Options.checkRecord(options), (checked) => {
    const given: LockOptions = {
      lease: checked?.lease ?? Duration.millis(handoff.leaseMs),
      heartbeat: checked?.heartbeat,
      warnAt: checked?.warnAt,
      safetyMargin: checked?.safetyMargin
    }
    return Options.flatMapCheck(Options.resolveCheck(defaults, given, defaultHolder), (resolved) => {
      const lease = Resume.checkLease(handoff.leaseMs, resolved)
      return lease._tag === "Ok" ? lease : OptionCheck.invalid("lease", lease.message)
    })
  })

const lost = (
  handoff: LeaseHandoff.LeaseHandoff,
  reason: "expired" | "stolen" | "freed",
  by: LockRecord | undefined
) => new LockLost({ name: handoff.name, owner: handoff.owner, fence: handoff.fence, reason, by })

/** Gives back a lease the resume moved to `owner` (or may have) but can not use. */
const giveBackResumed = (store: LockStore, handoff: LeaseHandoff.LeaseHandoff, owner: string) =>
  giveBack(
    LeaseStore.ofLock(store),
    { name: handoff.name, owner, fence: handoff.fence },
    (reason) => `could not give back the resumed lease of "${handoff.name}" (${reason}); it will run out`
  )

interface Resumed {
  readonly keeper: Keeper.Keeper
  readonly entry: HeldLeases.Entry
}

/**
 * Resumes `input` and starts keeping it, with `holder` (if given) as the first fiber to interrupt on loss. Must run
 * uninterruptibly, with `restore` the caller's mask: the write is interruptible, and once this succeeds the caller must
 * run `keeper.release` exactly once.
 */
const resumeKept = (
  input: LeaseHandoff.LeaseHandoff,
  options: Lock.ResumeOptions | undefined,
  restore: Restore,
  holder: EffectLine.Fiber<unknown, unknown> | undefined
): Effect.Effect<Resumed, LockLost | LockStoreError | LockConfigError, LockStore> =>
  Effect.gen(function*() {
    const store = yield* LockStore
    const handoff = yield* checkHandoff(input)
    const name = yield* Options.validateName(handoff.name, store)
    const resolved = yield* Options.fromCheck(resolveOptions(yield* LockDefaults, options, handoff))
    const { fence, owner } = handoff
    yield* Effect.annotateCurrentSpan({ "lock.owner": owner, "lock.fence": fence })
    if (Resume.isExpired(handoff.leaseUntil, yield* Clock.currentTimeMillis)) {
      return yield* lost(handoff, "expired", undefined)
    }

    const queues = queuesOf(store)
    const isHead = LocalQueue.tryEnter(queues, name)
    const onEnd = isHead ? LocalQueue.leaving(queues, name) : Keeper.noEnd
    const newOwner = randomOwner()
    const sentAt = yield* monotonicMillis
    const answer = yield* restore(store.renew({ name, owner, fence, leaseMs: resolved.leaseMs, newOwner })).pipe(
      // The write may have applied: only this process knows the new owner, so it gives the lease back.
      Effect.onError(() =>
        Effect.andThen(Effect.sync(onEnd), Background.fork(giveBackResumed(store, handoff, newOwner)))
      )
    )
    const record = Resume.resumedRecord(answer, newOwner, fence)
    if (record === undefined) {
      onEnd()
      const current = answer._tag === "Lost" ? answer.current : undefined
      return yield* lost(handoff, LeaseLoss.goneReason(undefined, current), current)
    }
    // From here to the caller's release nothing can be interrupted, so a held lock always gets its release.
    if (!LeaseDeadline.isInTime(resolved, sentAt, yield* monotonicMillis)) {
      // Answered after the lease it set could be taken over: give it back rather than run on it.
      onEnd()
      yield* giveBackResumed(store, handoff, newOwner)
      return yield* lost(handoff, "expired", undefined)
    }
    if (isHead) yield* LocalQueue.setHolding(queues, name, record)
    const users = LeaseUsers.make()
    if (holder !== undefined) users.holders.add(holder)
    const keeper = yield* Keeper.start({ store, record, options: resolved, sentAt, users, onEnd })
    const entry: HeldLeases.Entry = { store, name, users, isLive: keeper.isLive, lease: keeper.lease }
    return { keeper, entry }
  }).pipe(EffectLine.withSpan("Lock.resume", { attributes: { "lock.name": input?.name } }))

/** @internal */
export const resume = (
  handoff: LeaseHandoff.LeaseHandoff,
  options?: Lock.ResumeOptions
): Effect.Effect<Lease, LockLost | LockStoreError | LockConfigError, LockStore | Scope.Scope> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.gen(function*() {
      const self = yield* currentFiber
      const watch = yield* EffectLine.watchEnd
      const { entry, keeper } = yield* resumeKept(handoff, options, restore, self).pipe(
        Effect.onError(() => Effect.sync(watch.stop))
      )
      yield* Keeper.releaseWithScope(keeper)
      yield* HeldLeases.enterScoped(entry)
      yield* watch.held(entry)
      return keeper.lease
    })
  )

const withResumedSection = <A, E, R>(
  handoff: LeaseHandoff.LeaseHandoff,
  self: Effect.Effect<A, E, R>,
  options: Lock.ResumeOptions | undefined
): Effect.Effect<A, E | LockLost | LockStoreError | LockConfigError, R | LockStore> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.flatMap(
      resumeKept(handoff, options, restore, undefined),
      ({ entry, keeper }) =>
        EffectLine.ensuringMasked(
          runSection(entry, restore(HeldLeases.enter(entry)(self)), "holder", restore),
          keeper.release
        )
    )
  )

/** @internal */
export const withResumed: typeof Lock.withResumed = dual(
  // Data-first when the second argument is the program: withResumed(handoff, self, options?).
  (args) => Effect.isEffect(args[1]),
  <A, E, R>(
    first: LeaseHandoff.LeaseHandoff | Effect.Effect<A, E, R>,
    second: Effect.Effect<A, E, R> | LeaseHandoff.LeaseHandoff,
    options?: Lock.ResumeOptions
  ) =>
    // The hand-off comes first in both forms, so `dual` hands the pipeable form's program over as the first argument.
    Effect.isEffect(second)
      ? withResumedSection(first as LeaseHandoff.LeaseHandoff, second, options)
      : withResumedSection(second, first as Effect.Effect<A, E, R>, options)
)
