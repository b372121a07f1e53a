/**
 * `Semaphore.acquire`, `withPermits` and `inspect`: validate, run the permits' acquire loop, keep the permits as a
 * lock's lease is kept (heartbeat, loss interruption, release), and run the section in a fiber the loss interrupts.
 * Unlike a lock, permits are not re-entered and not queued in the process: every acquisition asks the store. Under a
 * lease session (`LeaseSession`), permits are held as a lock is: with no heartbeat of their own, lost with the session.
 *
 * @internal
 */
import type { LockRecord } from "@leasehold/core/record/LockRecord"
import { defaultHolder } from "@leasehold/core/record/Owner"
import type { SemaphoreRecord } from "@leasehold/core/record/SemaphoreRecord"
import * as Effect from "effect/Effect"
import { dual } from "effect/Function"
import * as Metric from "effect/Metric"
import type * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import {
  type LockConfigError,
  type LockLost,
  LockNotAcquired,
  type LockStoreError,
  type SemaphoreLimitMismatch
} from "../../LockError.js"
import { LockStore } from "../../LockStore.js"
import type { Permits as PermitsApi } from "../../Permits.js"
import type * as Semaphore from "../../Semaphore.js"
import type { SemaphoreOptions } from "../../Semaphore.js"
import * as EffectLine from "../effectLine.js"
import * as HeldAcquisition from "../lease/acquisition.js"
import * as Keeper from "../lease/keeper.js"
import type * as LeaseState from "../lease/leaseState.js"
import * as LeaseStore from "../lease/leaseStore.js"
import { LeaseView } from "../lease/leaseView.js"
import { isSection, type Restore } from "../lease/section.js"
import { LockDefaults } from "../options/defaults.js"
import * as Options from "../options/options.js"
import { monotonicMillis } from "../process/clock.js"
import * as HeldLeases from "../process/heldLeases.js"
import * as LeaseUsers from "../process/leaseUsers.js"
import * as Metrics from "../process/metrics.js"
import * as LeaseSession from "../session/leaseSession.js"
import * as PermitAcquire from "./permitAcquire.js"
import * as SemaphoreOptionsInternal from "./semaphoreOptions.js"

/** The handle of held permits. */
class Permits extends LeaseView implements PermitsApi {
  readonly name: string
  readonly owner: string
  readonly holder: string
  readonly permits: number
  readonly limit: number
  readonly fence: number
  readonly record: LockRecord

  constructor(state: LeaseState.LeaseState, record: LockRecord, options: SemaphoreOptionsInternal.Resolved) {
    super(state)
    this.name = state.name
    this.owner = state.owner
    this.holder = record.holder ?? options.lease.holder
    this.permits = options.permits
    this.limit = options.limit
    this.fence = state.fence
    this.record = record
  }
}

/** @internal */
export interface Acquisition {
  readonly keeper: Keeper.Keeper<PermitsApi>
  readonly entry: HeldLeases.Entry
}

/**
 * What a read/write lock's acquire asks of a semaphore's: reservations, the record marked, and the key its entry in
 * the fiber's held leases is found by (a semaphore's is its keeper, which nothing else finds).
 *
 * @internal
 */
export interface ReadWriteAcquire {
  readonly entryStore: object
  readonly span: string
  readonly attributes: Record<string, unknown>
}

/** The store, with the name checked against a semaphore's key budget. */
const storeAndName = (name: string) =>
  Effect.flatMap(
    LockStore,
    (store) => Effect.map(Options.validateName(name, store, "semaphore"), (valid) => [store, valid] as const)
  )

/**
 * Acquires permits and starts keeping them, with `holder` (if given) as the first fiber to interrupt on loss. Must
 * run uninterruptibly, with `restore` the caller's mask: it waits interruptibly, and once it succeeds the caller must
 * run `keeper.release` exactly once.
 *
 * @internal
 */
export const acquireKept = (
  name: string,
  options: SemaphoreOptions,
  restore: Restore,
  holder: EffectLine.Fiber<unknown, unknown> | undefined,
  readWrite?: ReadWriteAcquire
): Effect.Effect<
  Acquisition,
  LockNotAcquired | SemaphoreLimitMismatch | LockStoreError | LockConfigError,
  LockStore
> =>
  Effect.gen(function*() {
    const [store, validName] = yield* storeAndName(name)
    const resolved = yield* Options.fromCheck(
      SemaphoreOptionsInternal.resolve(yield* LockDefaults, options, defaultHolder, store)
    )
    const startedAt = yield* monotonicMillis
    // A lease session of this store, when the fiber has one: the permits are held under it, as a lock would be.
    const session = LeaseSession.inStore(yield* LeaseSession.CurrentLeaseSession, store)
    const sessionLost = Effect.flatMap(monotonicMillis, (now) =>
      new LockNotAcquired({ name: validName, holder: undefined, waitedMs: now - startedAt, session: session!.id }))
    if (session !== undefined && LeaseSession.stateOf(session).finished) {
      return yield* sessionLost
    }
    const acquired = yield* restore(
      PermitAcquire.run({
        store,
        name: validName,
        options: resolved,
        startedAt,
        session: session?.id,
        fair: readWrite !== undefined
      })
    )
    // From here to the caller's release nothing can be interrupted, so held permits always get their release.
    const users = LeaseUsers.make()
    if (holder !== undefined) {
      users.holders.add(holder)
    }
    const leaseStore = LeaseStore.ofPermits(store, resolved.permits)
    const kept = {
      store: leaseStore,
      permits: resolved.permits,
      record: acquired.record,
      options: resolved.lease,
      // The answer is when the permits began to be held: what follows it up to here waits for nothing.
      keptSince: acquired.answeredAt,
      users,
      onEnd: Keeper.noEnd,
      handle: (state: LeaseState.LeaseState) =>
        new Permits(state, acquired.record, resolved)
    }
    const keeper = session === undefined
      ? yield* Keeper.keep<PermitsApi>({ ...kept, sentAt: acquired.sentAt })
      : yield* Keeper.keepUnder<PermitsApi>({ ...kept, session: LeaseSession.stateOf(session) })
    // The session was lost while the permits were being acquired under it: the keeper gave them back.
    if (keeper === undefined) {
      return yield* sessionLost
    }
    yield* Metrics.increment(Metrics.acquisitions)
    yield* Metric.update(Metrics.waitTime, acquired.answeredAt - startedAt)
    yield* Effect.annotateCurrentSpan("semaphore.fence", keeper.lease.fence)
    // Keyed by the keeper, which no lock shares: the entry stops whoever takes the permits over on loss, and a lock
    // of the same name is never taken for a re-entry of it.
    const entry: HeldLeases.Entry = {
      store: readWrite?.entryStore ?? keeper,
      name: validName,
      users,
      isLive: keeper.isLive,
      lease: keeper.lease
    }
    return { keeper, entry }
  }).pipe(
    EffectLine.withSpan(readWrite?.span ?? "Semaphore.acquire", {
      attributes: readWrite?.attributes ?? {
        "semaphore.name": name,
        "semaphore.limit": options?.limit,
        "semaphore.permits": options?.permits ?? 1
      }
    })
  )

/** Permits are never re-entered: every acquisition is one of its own. */
const acquired = (
  name: string,
  options: SemaphoreOptions,
  restore: Restore,
  holder: EffectLine.Fiber<unknown, unknown> | undefined
) => Effect.map(acquireKept(name, options, restore, holder), (kept) => ({ _tag: "Acquired", ...kept } as const))

/** @internal */
export const acquire = (
  name: string,
  options: SemaphoreOptions
): Effect.Effect<
  PermitsApi,
  LockNotAcquired | SemaphoreLimitMismatch | LockStoreError | LockConfigError,
  LockStore | Scope.Scope
> => HeldAcquisition.scoped((restore, self) => acquired(name, options, restore, self))

/** A section: a program, or a function of the permits it runs under that makes it. */
type Section<A, E, R> = Effect.Effect<A, E, R> | ((permits: PermitsApi) => Effect.Effect<A, E, R>)

const withPermitsSection = <A, E, R>(
  name: string,
  section: Section<A, E, R>,
  options: SemaphoreOptions
): Effect.Effect<
  A,
  E | LockNotAcquired | LockLost | SemaphoreLimitMismatch | LockStoreError | LockConfigError,
  R | LockStore
> => HeldAcquisition.section((restore) => acquired(name, options, restore, undefined), section)

/** @internal */
export const withPermits: typeof Semaphore.withPermits = dual(
  // Data-first when the second argument is the section: withPermits(name, self, options), where `self` is a program
  // or a function of the permits; pipeable when it is the options: withPermits(name, options).
  (args) => isSection(args[1]),
  <A, E, R>(
    first: string | Section<A, E, R>,
    second: Section<A, E, R> | string,
    options: SemaphoreOptions
  ) =>
    // The name comes first in both forms, so `dual` hands the pipeable form's program over as the first argument.
    typeof second === "string"
      ? withPermitsSection(second, first as Section<A, E, R>, options)
      : withPermitsSection(first as string, second, options)
)

/** @internal */
export const inspect = (
  name: string
): Effect.Effect<Option.Option<SemaphoreRecord>, LockStoreError | LockConfigError, LockStore> =>
  Effect.flatMap(storeAndName(name), ([store, validName]) => store.inspectSemaphore(validName)).pipe(
    EffectLine.withSpan("Semaphore.inspect", { attributes: { "semaphore.name": name } })
  )
