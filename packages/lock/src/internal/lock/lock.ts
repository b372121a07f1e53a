/**
 * `acquire` and `withLock`: validate, re-enter a live lease of the same store and name, queue behind the process's
 * other fibers that want the name, run the acquire loop, start keeping the lease, and (for `withLock`) run the section
 * in a fiber of its own that the end of the lease interrupts.
 *
 * @internal
 */
import { defaultHolder } from "@leasehold/core/record/Owner"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { dual } from "effect/Function"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type { Lease } from "../../Lease.js"
import type * as Lock from "../../Lock.js"
import type { LockOptions } from "../../Lock.js"
import { type LockConfigError, LockLost, LockNotAcquired, type LockStoreError } from "../../LockError.js"
import { LockStore } from "../../LockStore.js"
import * as AcquireLoop from "../acquire/acquireLoop.js"
import * as EffectLine from "../effectLine.js"
import * as HeldAcquisition from "../lease/acquisition.js"
import * as Keeper from "../lease/keeper.js"
import { isSection, type Restore } from "../lease/section.js"
import { LockDefaults } from "../options/defaults.js"
import * as Options from "../options/options.js"
import { monotonicMillis } from "../process/clock.js"
import * as HeldLeases from "../process/heldLeases.js"
import * as LeaseUsers from "../process/leaseUsers.js"
import * as LocalQueue from "../process/localQueue.js"
import * as Metrics from "../process/metrics.js"
import { queuesOf } from "../process/processLocal.js"
import * as Region from "../process/region.js"
import * as LeaseSession from "../session/leaseSession.js"

/**
 * A lock this call acquired (and must release), or the live lease of an outer acquisition it re-entered.
 *
 * @internal
 */
export type Acquisition = HeldAcquisition.Acquisition<Lease>

/**
 * Acquires `name` and starts keeping it, with `holder` (if given) as the first fiber to interrupt on loss. Must run
 * uninterruptibly, with `restore` the caller's mask: it waits interruptibly, and once it succeeds with `Acquired` the
 * caller must run `keeper.release` exactly once.
 *
 * @internal
 */
export const acquireKept = (
  name: string,
  options: LockOptions | undefined,
  restore: Restore,
  holder: EffectLine.Fiber<unknown, unknown> | undefined
): Effect.Effect<Acquisition, LockNotAcquired | LockStoreError | LockConfigError, LockStore> =>
  Effect.gen(function*() {
    const store = yield* LockStore
    const validName = yield* Options.validateName(name, store)
    const resolved = yield* Options.fromCheck(Options.resolveCheck(yield* LockDefaults, options, defaultHolder))

    // Re-entry: the outer acquisition keeps governing the lease and releases it.
    const outer = yield* HeldAcquisition.reentered(store, validName)
    if (outer !== undefined) return { _tag: "Reentered", entry: outer } as const

    const startedAt = yield* monotonicMillis

    const queues = queuesOf(store)
    // Nobody ahead: the head at once, without the interruptible wait (and its fiber-flag changes) that a queue needs.
    const isHead = LocalQueue.tryEnter(queues, validName) ||
      (yield* restore(
        LocalQueue.enter(
          queues,
          validName,
          resolved.waitMs === undefined ? undefined : Duration.millis(resolved.waitMs)
        )
      ))
    if (!isHead) {
      const now = yield* monotonicMillis
      const holding = yield* LocalQueue.holding(queues, validName)
      yield* Metrics.increment(Metrics.notAcquired)
      return yield* new LockNotAcquired({
        name: validName,
        holder: Option.getOrUndefined(holding),
        waitedMs: now - startedAt
      })
    }
    // A lease session of this store, when the fiber has one: the lock is held under it, with no heartbeat of its own.
    const session = LeaseSession.inStore(yield* LeaseSession.CurrentLeaseSession, store)
    if (session !== undefined && LeaseSession.stateOf(session).finished) {
      return yield* sessionLost({ store, name: validName, session, startedAt })
    }
    const acquired = yield* EffectLine.onErrorMasked(
      restore(AcquireLoop.run({ store, name: validName, options: resolved, startedAt, session: session?.id })),
      LocalQueue.leave(queues, validName)
    )
    return yield* keepAcquired({ store, name: validName, options: resolved, acquired, holder, session, startedAt })
  }).pipe(EffectLine.withSpan("Lock.acquire", { attributes: { "lock.name": name } }))

/** The session a lock was to be held under ended: the name's place in the process's queue is given up. */
const sessionLost = (args: {
  readonly store: LockStore
  readonly name: string
  readonly session: LeaseSession.SessionHandle
  readonly startedAt: number
}): Effect.Effect<never, LockNotAcquired> =>
  Effect.flatMap(monotonicMillis, (now) =>
    Effect.andThen(
      LocalQueue.leave(queuesOf(args.store), args.name),
      new LockNotAcquired({
        name: args.name,
        holder: undefined,
        waitedMs: now - args.startedAt,
        session: args.session.id
      })
    ))

/**
 * Starts keeping a lock just acquired, by a fiber at the head of its process's queue for the name: the lease's
 * heartbeat (or its session), its users, and its entry. Must run uninterruptibly; the caller must then run
 * `keeper.release` exactly once. Under a session lost meanwhile the keeper gives the lock back, and this fails with
 * `LockNotAcquired` naming the session.
 *
 * @internal
 */
export const keepAcquired = (args: {
  readonly store: LockStore
  readonly name: string
  readonly options: Options.Resolved
  readonly acquired: AcquireLoop.Acquired
  readonly holder: EffectLine.Fiber<unknown, unknown> | undefined
  readonly session: LeaseSession.SessionHandle | undefined
  readonly startedAt: number
}): Effect.Effect<Extract<Acquisition, { readonly _tag: "Acquired" }>, LockNotAcquired> =>
  Effect.gen(function*() {
    const { acquired, holder, name, session, store } = args
    const queues = queuesOf(store)
    // From here to the caller's release nothing can be interrupted, so a held lock always gets its release.
    yield* LocalQueue.setHolding(queues, name, acquired.record)
    const users = LeaseUsers.make()
    if (holder !== undefined) users.holders.add(holder)
    const kept = {
      store,
      record: acquired.record,
      options: args.options,
      // The answer is when the lease began to be held: what follows it up to here waits for nothing.
      keptSince: acquired.answeredAt,
      users,
      onEnd: LocalQueue.leaving(queues, name)
    }
    const keeper = session === undefined
      ? yield* Keeper.start({ ...kept, sentAt: acquired.sentAt })
      : yield* Keeper.startUnder({ ...kept, session: LeaseSession.stateOf(session) })
    // The session was lost while the lock was being acquired under it: the keeper gave the lock back.
    if (keeper === undefined) return yield* sessionLost({ store, name, session: session!, startedAt: args.startedAt })

    yield* Metrics.increment(Metrics.acquisitions)
    yield* Metric.update(Metrics.waitTime, acquired.answeredAt - args.startedAt)
    yield* Effect.annotateCurrentSpan("lock.fence", keeper.lease.fence)
    const entry: HeldLeases.Entry = { store, name, users, isLive: keeper.isLive, lease: keeper.lease }
    return { _tag: "Acquired", keeper, entry } as const
  })

/** @internal */
export const acquire = (
  name: string,
  options?: LockOptions
): Effect.Effect<Lease, LockNotAcquired | LockStoreError | LockConfigError, LockStore | Scope.Scope> =>
  HeldAcquisition.scoped((restore, self) => acquireKept(name, options, restore, self))

/** A section: a program, or a function of the lease it runs under that makes it. */
type Section<A, E, R> = Effect.Effect<A, E, R> | ((lease: Lease) => Effect.Effect<A, E, R>)

const withLockSection = <A, E, R>(
  name: string,
  section: Section<A, E, R>,
  options: LockOptions | undefined
): Effect.Effect<A, E | LockNotAcquired | LockLost | LockStoreError | LockConfigError, R | LockStore> =>
  HeldAcquisition.section((restore) => acquireKept(name, options, restore, undefined), section)

/**
 * `withLock` with the section made from the lease: for `TypedLock`, whose section takes the lease.
 *
 * @internal
 */
export const withLease = <A, E, R>(
  name: string,
  section: (lease: Lease) => Effect.Effect<A, E, R>,
  options: LockOptions | undefined
): Effect.Effect<A, E | LockNotAcquired | LockLost | LockStoreError | LockConfigError, R | LockStore> =>
  withLockSection(name, section, options)

/** @internal */
export const withLock: typeof Lock.withLock = dual(
  // Data-first when the second argument is the section: withLock(name, self, options?), where `self` is a program or
  // a function of the lease; pipeable when it is the options or nothing: withLock(name, options?).
  (args) => isSection(args[1]),
  <A, E, R>(
    first: string | Section<A, E, R>,
    second: Section<A, E, R> | string,
    options?: LockOptions
  ) =>
    // The name comes first in both forms, so `dual` hands the pipeable form's program over as the first argument.
    typeof second === "string"
      ? withLockSection(second, first as Section<A, E, R>, options)
      : withLockSection(first as string, second, options)
)

/** @internal */
export const validateOptions = (options: LockOptions): Effect.Effect<void, LockConfigError> =>
  Effect.asVoid(Options.resolve({}, options, defaultHolder))

/**
 * `Lock.scoped`: the region's program in a fiber of its own, whose loss of a lease the region turns into `LockLost`
 * (`region.ts`), in the line's scope: on Effect 3 `Effect.scoped`, whose join hook of the held-lease list already hands
 * a lease over to the fiber that goes on after a wrapped acquire; on Effect 4 `Effect.scoped` with the region's guard
 * (`leaseGuard.ts`).
 *
 * @internal
 */
export const scoped: <A, E, R>(
  self: Effect.Effect<A, E, R>
) => Effect.Effect<A, E | LockLost, Exclude<R, Scope.Scope>> = Region.scoped
