/**
 * The acquire loop of a semaphore's permits: one conditional write per attempt, which also removes the holders whose
 * leases are over when that makes room.
 *
 * On conflict the record says how full the semaphore is. If the permits would fit once the holders that are over are
 * removed, the next attempt goes at once and removes them; otherwise the fiber sleeps until the next holder's lease
 * could be over or a jittered poll interval, whichever is sooner, until `wait` runs out. Creating the record, removing
 * holders and a record that changed under the attempt are not waiting: they get a few immediate attempts even with
 * no `wait`. Each fiber asks on its own: there is no local queue and no reservation, so waiters are served in no
 * particular order. A write that may have applied is given back, by owner, when the loop ends without the permits;
 * what an owner id stands for, and when the loop takes a fresh one, is in `acquireOwner.ts`.
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import { LockNotAcquired, type LockStoreError, SemaphoreLimitMismatch } from "../LockError.js"
import type { LockRecord } from "../LockRecord.js"
import type * as LockStore from "../LockStore.js"
import { type PermitHolder, permitRecord, type SemaphoreRecord } from "../SemaphoreRecord.js"
import type { ExpiredPermit, PermitTakeover } from "../SemaphoreStore.js"
import * as AcquireBound from "./acquireBound.js"
import * as AcquireOwner from "./acquireOwner.js"
import { monotonicMillis } from "./clock.js"
import { giveBack } from "./giveBack.js"
import * as LeaseStore from "./leaseStore.js"
import * as MemoryStore from "./memoryStore.js"
import * as Metrics from "./metrics.js"
import type * as SemaphoreOptions from "./semaphoreOptions.js"

/**
 * Attempts in a row without a sleep: enough to create the record, then remove holders, then lose one race; a record
 * that keeps changing under the attempts makes the fiber wait a poll interval like any conflict.
 */
const maxEagerAttempts = 3

/** @internal */
export interface Args {
  readonly store: LockStore.LockStore
  readonly name: string
  readonly options: SemaphoreOptions.Resolved
  /** Monotonic ms when the caller began to acquire: `wait` counts from here. */
  readonly startedAt: number
}

/** @internal */
export interface Acquired {
  /** The caller's entry, as a lock's record. */
  readonly record: LockRecord
  /** Monotonic ms just before the write that set the current lease was sent (or an equally safe estimate). */
  readonly sentAt: number
}

/** A holder as an observed-mode waiter first saw it at its current version, on its monotonic clock. */
interface Sighting {
  readonly version: number
  readonly seenAt: number
}

/** What one acquire has learned so far. */
interface Attempts {
  /** The owner id the attempts write with, and which of its writes may have applied without our knowing. */
  readonly owner: AcquireOwner.AcquireOwner
  /** The last attempt found no record. */
  create: boolean
  /** The holders to remove in the next attempt. */
  expired: ReadonlyArray<ExpiredPermit>
  /** Attempts since the last sleep. */
  eager: number
  /** The record the last conflict showed, for the answer when the wait runs out. */
  last: SemaphoreRecord | undefined
  /** Observed takeover: each other holder's version as first seen. */
  readonly sightings: Map<string, Sighting>
}

const takeoverOf = (options: SemaphoreOptions.Resolved): PermitTakeover =>
  options.lease.takeover === "absolute"
    ? { _tag: "Absolute", maxClockSkewMs: options.lease.maxClockSkewMs }
    : { _tag: "Observed" }

/** Records the versions of the record's holders as seen at `now`; forgets the holders that are gone. */
const observe = (attempts: Attempts, record: SemaphoreRecord, now: number) => {
  const present = new Set<string>()
  for (const holder of record.holders) {
    present.add(holder.owner)
    const seen = attempts.sightings.get(holder.owner)
    if (seen === undefined || seen.version !== holder.version) {
      attempts.sightings.set(holder.owner, { version: holder.version, seenAt: now })
    }
  }
  for (const owner of attempts.sightings.keys()) if (!present.has(owner)) attempts.sightings.delete(owner)
}

/**
 * How long until `holder` may be removed, in ms on our clocks: 0 or less once it may. Absolute: past its
 * `leaseUntil` + skew on our wall clock. Observed: a full lease after we first saw its current version.
 */
const untilOver = (
  options: SemaphoreOptions.Resolved,
  attempts: Attempts,
  holder: PermitHolder,
  wallNow: number,
  now: number
): number => {
  if (options.lease.takeover === "absolute") return holder.leaseUntil + options.lease.maxClockSkewMs + 1 - wallNow
  const seen = attempts.sightings.get(holder.owner)
  return seen === undefined ? holder.leaseMs : seen.seenAt + holder.leaseMs - now
}

/** What a conflict leads to: the next attempt at once (removing `expired`), or a sleep of `sleepMs`. */
type Plan =
  | { readonly _tag: "Now"; readonly expired: ReadonlyArray<ExpiredPermit> }
  | { readonly _tag: "Sleep"; readonly sleepMs: number }

const plan = (
  args: Args,
  attempts: Attempts,
  record: SemaphoreRecord,
  wallNow: number,
  now: number,
  pollMs: number
): Plan => {
  const expired: Array<ExpiredPermit> = []
  let freed = 0
  let nextOverMs = Infinity
  for (const holder of record.holders) {
    if (holder.owner === attempts.owner.owner) continue
    const ms = untilOver(args.options, attempts, holder, wallNow, now)
    if (ms <= 0) {
      expired.push({ owner: holder.owner, permits: holder.permits, version: holder.version })
      freed += holder.permits
    } else {
      nextOverMs = Math.min(nextOverMs, ms)
    }
  }
  if (record.used - freed + args.options.permits <= record.limit) return { _tag: "Now", expired }
  return { _tag: "Sleep", sleepMs: Math.min(pollMs, nextOverMs) }
}

const jitteredPoll = (args: Args) => AcquireBound.jitteredPoll(args.options.lease.pollIntervalMs)

const giveUp = (
  args: Args,
  record: SemaphoreRecord | undefined,
  now: number,
  late?: { readonly answeredAfterMs?: number; readonly unansweredAfterMs?: number }
) =>
  AcquireBound.giveUp({
    name: args.name,
    startedAt: args.startedAt,
    permits: {
      wanted: args.options.permits,
      limit: args.options.limit,
      used: record?.used ?? 0,
      holders: record?.holders.length ?? 0
    },
    ...late
  }, now)

/** Gives back by owner whatever the writes of `owner` may have left held. */
const cleanup = ({ name, options, store }: Args, owner: string) =>
  giveBack(
    LeaseStore.ofPermits(store, options.permits),
    { name, owner, fence: undefined },
    (reason) =>
      `could not clean up after an unfinished acquire of semaphore "${name}" (${reason}); if a write of it was ` +
      `applied, its lease will expire`
  )

/** Sleeps `ms`, no later than `waitUntil`; the next attempt is the first of a new eager run. */
const sleepFor = (attempts: Attempts, ms: number, now: number, waitUntil: number) => {
  attempts.eager = 0
  return Effect.sleep(Duration.millis(Math.max(0, Math.round(Math.min(ms, waitUntil - now)))))
}

/** After a conflict that showed `record` at `now`: go again at once, sleep, or give up. */
const afterConflict = (
  args: Args,
  attempts: Attempts,
  record: SemaphoreRecord | undefined,
  now: number,
  waitUntil: number
): Effect.Effect<void, LockNotAcquired> =>
  Effect.gen(function*() {
    yield* Metric.increment(Metrics.conflicts)
    attempts.create = record === undefined
    // No record: the next attempt creates it.
    let next: Plan = { _tag: "Now", expired: [] }
    if (record !== undefined) {
      attempts.last = record
      if (args.options.lease.takeover === "observed") observe(attempts, record, now)
      next = plan(args, attempts, record, yield* Clock.currentTimeMillis, now, yield* jitteredPoll(args))
    }
    attempts.expired = next._tag === "Now" ? next.expired : []
    if (next._tag === "Now" && attempts.eager < maxEagerAttempts) return
    if (now >= waitUntil) return yield* giveUp(args, record ?? attempts.last, now)
    return yield* sleepFor(attempts, next._tag === "Sleep" ? next.sleepMs : yield* jitteredPoll(args), now, waitUntil)
  })

/**
 * Tries until acquired or `wait` (from `startedAt`, monotonic ms) passes, plus `waitSlack` for a call in flight.
 * Interruptible everywhere; if it ends without the permits after a write that may have applied, it gives them back
 * by owner, in the background unless the store answers at once.
 *
 * @internal
 */
export const run = (
  args: Args
): Effect.Effect<Acquired, LockNotAcquired | SemaphoreLimitMismatch | LockStoreError> => {
  const { name, options, store } = args
  const lease = options.lease
  const waitUntil = lease.waitMs === undefined ? Infinity : args.startedAt + lease.waitMs
  const takeover = takeoverOf(options)
  const attempts: Attempts = {
    owner: AcquireOwner.make(),
    create: false,
    expired: [],
    eager: 0,
    last: undefined,
    sightings: new Map()
  }
  const answersAtOnce = MemoryStore.answersAtOnce(store)

  const attempt = (sentAt: number) =>
    Effect.suspend(() => {
      AcquireOwner.sending(attempts.owner, sentAt)
      attempts.eager += 1
      return store.tryAcquirePermits({
        name,
        owner: attempts.owner.owner,
        holder: lease.holder,
        limit: options.limit,
        permits: options.permits,
        leaseMs: lease.leaseMs,
        data: lease.data,
        takeover,
        expired: attempts.create ? [] : attempts.expired,
        create: attempts.create
      })
    })

  const sleep = (ms: number, now: number) => sleepFor(attempts, ms, now, waitUntil)

  const loop: Effect.Effect<Acquired, LockNotAcquired | SemaphoreLimitMismatch | LockStoreError> = Effect.gen(
    function*() {
      // The span of the acquire already carries the name.
      yield* Effect.annotateCurrentSpan("semaphore.owner", attempts.owner.owner)
      while (true) {
        const sentAt = yield* monotonicMillis
        const result = yield* Effect.either(attempt(sentAt))
        const now = yield* monotonicMillis
        if (result._tag === "Left") {
          // The write may have applied: retry with the same owner, which recognises its own entry below.
          AcquireOwner.failed(attempts.owner, result.left)
          if (!result.left.retryable || now >= waitUntil) return yield* Effect.fail(result.left)
          yield* sleep(yield* jitteredPoll(args), now)
          continue
        }
        AcquireOwner.answered(attempts.owner)
        const outcome = result.right
        if (outcome._tag === "LimitMismatch") {
          return yield* new SemaphoreLimitMismatch({ name, limit: options.limit, storedLimit: outcome.limit })
        }
        // Ours: this write's, or (its own entry in a conflict) one whose answer never came. Count the lease from the
        // earliest write of the owner whose outcome is unknown (see `acquireOwner.ts`).
        const entry = outcome._tag === "Conflict"
          ? outcome.current?.holders.find((holder) => holder.owner === attempts.owner.owner)
          : undefined
        const record = outcome._tag === "Acquired"
          ? outcome.record
          : entry === undefined
          ? undefined
          : permitRecord(name, entry)
        if (record !== undefined) {
          const candidate: Acquired = { record, sentAt: AcquireOwner.leaseStart(attempts.owner, sentAt) }
          if (candidate.sentAt + lease.leaseMs - lease.safetyMarginMs > now) return candidate
          // Answered after the lease it granted could be over: give it back, and go on with a fresh owner id, so that
          // the give-back, however late it lands, frees nothing but this entry. If it fails, the entry stays under the
          // old owner id until its lease is over, as any holder's that stopped renewing.
          yield* cleanup(args, attempts.owner.owner)
          AcquireOwner.renew(attempts.owner)
          yield* Effect.annotateCurrentSpan("semaphore.owner", attempts.owner.owner)
          yield* Effect.logWarning(`an acquire of semaphore "${name}" was answered too late to use; retrying`)
          if (now >= waitUntil) return yield* giveUp(args, attempts.last, now, { answeredAfterMs: now - sentAt })
          yield* sleep(yield* jitteredPoll(args), now)
          continue
        }
        yield* afterConflict(args, attempts, outcome._tag === "Conflict" ? outcome.current : undefined, now, waitUntil)
      }
    }
  )

  return AcquireBound.bound({
    loop,
    mayHaveWritten: () => AcquireOwner.mayHaveWritten(attempts.owner),
    giveBack: Effect.suspend(() => cleanup(args, attempts.owner.owner)),
    answersAtOnce,
    waitUntil,
    unanswered: (now) => giveUp(args, attempts.last, now, { unansweredAfterMs: now - waitUntil })
  })
}
