/**
 * The acquire loop of the fiber at the head of a name's local queue: one conditional write per attempt (after the
 * first conflict, a read first, and the write only when it would take the lock); on conflict, sleep until the
 * holder's lease could be over or a jittered poll interval, whichever is sooner, until `wait` runs out, reserving the
 * lock to be next as `reservation.ts` says. The loop is `attemptLoop.ts`'s, with a lock's request,
 * judge and conflict handling; what each answer leads to is decided in `@leasehold/core/acquire/LockAttempt` (and
 * `AcquireStep`). A store call still unanswered then gets `waitSlackMs` more, and is abandoned after that: `wait`
 * bounds the acquire whatever the store does.
 *
 * @internal
 */
import * as AcquireBoundCore from "@leasehold/core/acquire/AcquireBound"
import type * as AcquireStep from "@leasehold/core/acquire/AcquireStep"
import * as LockAttempt from "@leasehold/core/acquire/LockAttempt"
import * as ReservationCore from "@leasehold/core/acquire/Reservation"
import type { LockRecord } from "@leasehold/core/record/LockRecord"
import * as LeaseSession from "@leasehold/core/session/LeaseSession"
import * as SessionWaiting from "@leasehold/core/session/SessionWaiting"
import type * as LockProtocol from "@leasehold/core/store/LockProtocol"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { LockNotAcquired, LockStoreError } from "../../LockError.js"
import type * as LockStore from "../../LockStore.js"
import { giveBack } from "../lease/giveBack.js"
import * as LeaseStore from "../lease/leaseStore.js"
import type * as Options from "../options/options.js"
import * as LastRelease from "../process/lastRelease.js"
import * as MemoryStore from "../store/memoryStore.js"
import * as AcquireBound from "./acquireBound.js"
import * as AttemptLoop from "./attemptLoop.js"
import * as Reservation from "./reservation.js"
import * as SessionJudge from "./sessionJudge.js"

/** @internal */
export type Acquired = AttemptLoop.Acquired

/** @internal */
export interface Args {
  readonly store: LockStore.LockStore
  readonly name: string
  readonly options: Options.Resolved
  /** Monotonic ms when the caller began to acquire: `wait` counts from here. */
  readonly startedAt: number
  /** The id of the lease session to hold the lock under, if any. */
  readonly session?: string | undefined
}

/** What one acquire has learned so far. */
interface Attempts {
  /** The holder as an observed-mode waiter first saw it in its current state. */
  observation: LockAttempt.Observation | undefined
  /** The holder the last conflict named, for the answer when the wait runs out with a call in flight. */
  lastHolder: LockRecord | undefined
  /** Epoch ms on our wall clock when the caller began to ask, set at the first conflict: a reservation's priority. */
  waitingSince: number | undefined
  /** Whether the attempts read the record before they write (`LockAttempt.worthWriting`): after the first conflict. */
  looks: boolean
  /** A holder under a lease session that was judged dead: the next attempts may take the lock from it. */
  orphan: LockProtocol.Orphan | undefined
  /** Whether the next attempt writes at once, without a look: a holder just judged dead is named in the write. */
  writesNext: boolean
  /**
   * The live session whose lock this acquire waits on, the holder last seen under it, and how to stop counting this
   * acquire among that session's waiters.
   */
  waitingOn: { readonly session: string; holder: LockRecord; readonly leave: () => void } | undefined
}

const giveUp = (args: Args, holder: LockRecord | undefined, now: number, late?: AcquireBound.Late) =>
  AcquireBound.giveUp({ name: args.name, startedAt: args.startedAt, holder, ...late }, now)

/** Releases by owner whatever the writes of `owner` may have left held. */
const cleanup = ({ name, store }: Args, owner: string) =>
  giveBack(
    LeaseStore.ofLock(store),
    { name, owner, fence: undefined },
    (reason) =>
      `could not clean up after an unfinished acquire of "${name}" (${reason}); if a write of it was applied, its ` +
      `lease will expire`
  )

/**
 * Tries until acquired or `wait` (from `startedAt`, monotonic ms) passes, plus `waitSlackMs` for a call in flight.
 * Interruptible everywhere; if it ends without the lock after a write that may have applied (interrupted in flight,
 * or a store error), it releases by owner so that nothing is left held: in the background, so that neither the
 * caller's answer nor an interruption waits for a store that does not answer.
 *
 * @internal
 */
export const run = (args: Args): Effect.Effect<Acquired, LockNotAcquired | LockStoreError> => {
  const { name, options, store } = args
  const waitUntil = AcquireBoundCore.waitUntil(args.startedAt, options.waitMs)
  const attempts: Attempts = {
    observation: undefined,
    lastHolder: undefined,
    waitingSince: undefined,
    looks: false,
    orphan: undefined,
    writesNext: false,
    waitingOn: undefined
  }

  /** Counts this acquire among the waiters on the session `holder` is under (none: among no session's). */
  const waitOn = (session: string | undefined, holder: LockRecord | undefined) => {
    if (session !== undefined && attempts.waitingOn?.session === session) {
      attempts.waitingOn.holder = holder!
      return
    }
    attempts.waitingOn?.leave()
    attempts.waitingOn = session === undefined
      ? undefined
      : { session, holder: holder!, leave: SessionJudge.waitOn(store, session) }
  }

  /** After a conflict on `holder` at `now`: give up, or (having reserved, if the core says so) sleep. */
  const conflict = (
    holder: LockRecord | undefined,
    owner: string,
    now: number
  ): Effect.Effect<AcquireStep.Sleep, LockNotAcquired> =>
    Effect.gen(function*() {
      attempts.observation = LockAttempt.observe(attempts.observation, holder, now)
      attempts.looks = true
      const wallNow = yield* Clock.currentTimeMillis
      const waitingSince = attempts.waitingSince ??= ReservationCore.waitingSince(wallNow, now, args.startedAt)
      const next = LockAttempt.afterConflict({ options, owner, holder, waitingSince, now, wallNow, waitUntil })
      if (next._tag === "GiveUp") return yield* giveUp(args, next.holder, now)
      // A holder under a lease session is judged by its session, not by its lease fields (`LeaseSession`).
      const session = holder === undefined ? undefined : LeaseSession.sessionOf(holder)
      const verdict = session === undefined ? undefined : yield* SessionJudge.judge(store, session, options)
      waitOn(verdict?._tag === "Alive" ? session : undefined, holder)
      if (verdict?._tag === "Dead") {
        const judged = LockAttempt.orphanOf(attempts.orphan, holder)
        attempts.orphan = { owner: holder!.owner!, fence: holder!.fence }
        // Newly judged: write at once, naming the holder judged. Kept out again (a reservation), it waits as any
        // conflict does.
        if (judged === undefined) {
          attempts.writesNext = true
          return { _tag: "Sleep", sleepMs: 0 } as const
        }
      }
      // A herd on a live session's locks does not reserve them (`SessionWaiting.reserves`).
      const reserves = attempts.waitingOn === undefined ||
        SessionWaiting.reserves(SessionJudge.waitersOn(store, attempts.waitingOn.session))
      const record = next._tag === "Reserve" && reserves
        ? yield* Reservation.reserve(store, { name, owner, ...next, waitingSince }, next.current)
        : holder
      // The wall clock is read again after the reservation's round trip, and only when the takeover time is on it.
      const takeoverWallNow = LockAttempt.judgedByWallClock(options, record) ? yield* Clock.currentTimeMillis : wallNow
      const jittered = yield* AcquireBound.jitteredPoll(options.pollIntervalMs)
      // The waiters on one live session's locks share their reads of them (`SessionWaiting`).
      const pollMs = attempts.waitingOn === undefined
        ? jittered
        : SessionWaiting.pollMs(jittered, SessionJudge.waitersOn(store, attempts.waitingOn.session))
      const { observation } = attempts
      const sleepMs = LockAttempt.sleepMs({
        options,
        owner,
        observation,
        record,
        now,
        wallNow,
        takeoverWallNow,
        pollMs,
        waitingSince
      })
      return {
        _tag: "Sleep",
        sleepMs: verdict?._tag === "Alive" ? SessionWaiting.sleepMs(sleepMs, verdict.untilJudgedMs) : sleepMs
      }
    })

  /**
   * The acquiring write; `reserved` when the record last seen carries our reservation, which the write clears, and
   * `orphan` when it shows a holder whose session was judged dead.
   */
  const write = (owner: string, sentAt: number, reserved: boolean, orphan?: LockProtocol.Orphan | undefined) =>
    store.tryAcquire({
      name,
      owner,
      holder: options.holder,
      leaseMs: options.leaseMs,
      data: options.data,
      takeover: LockAttempt.takeover(options, attempts.observation, sentAt),
      reserved,
      orphan,
      session: args.session
    })

  /** Writes if `record` (just read) says the write would take the lock; else answers the conflict it would have. */
  const writeIfWorth = (owner: string, sentAt: number, record: LockRecord | undefined) =>
    Effect.flatMap(
      Clock.currentTimeMillis,
      (wallNow) => {
        const orphan = LockAttempt.orphanOf(attempts.orphan, record)
        return LockAttempt.worthWriting(options, owner, attempts.observation, record, sentAt, wallNow, orphan)
          ? write(owner, sentAt, record?.reservedBy === owner, orphan)
          : Effect.succeed<LockStore.AcquireResult>({ _tag: "Conflict", current: record })
      }
    )

  /** Reads the record, and writes only if the write would take it. */
  const lookThenWrite = (owner: string, sentAt: number): Effect.Effect<LockStore.AcquireResult, LockStoreError> =>
    Effect.flatMap(store.inspect(name), (found) => writeIfWorth(owner, sentAt, Option.getOrUndefined(found)))

  /**
   * Waiting on a lock of a live session: judges the session first (one read for every waiter of this process), and
   * once it is dead writes at once, naming the holder last seen, without reading the lock: when a session dies, its
   * waiters' writes follow its judgement without a read each in between. While it lives, looks as any attempt does.
   */
  const judgeThenWrite = (owner: string, sentAt: number, holder: LockRecord) =>
    Effect.flatMap(SessionJudge.judge(store, attempts.waitingOn!.session, options), (verdict) => {
      if (verdict._tag !== "Dead") return lookThenWrite(owner, sentAt)
      attempts.orphan = { owner: holder.owner!, fence: holder.fence }
      return write(owner, sentAt, holder.reservedBy === owner, attempts.orphan)
    })

  // What this process's own release of the name left, if someone had reserved it: the first attempt judges it as
  // it judges a look, so a reservation that keeps this process out costs no refused write.
  const released = LastRelease.take(store, name)

  /** The first attempt: a write, unless what the last release here left shows it would be refused. */
  const first = (owner: string, sentAt: number): Effect.Effect<LockStore.AcquireResult, LockStoreError> =>
    released === undefined ? write(owner, sentAt, false) : writeIfWorth(owner, sentAt, released)

  return Effect.ensuring(
    AttemptLoop.run({
      ownerAttribute: "lock.owner",
      tooLateWarning: `an acquire of "${name}" was answered too late to use; retrying`,
      waitUntil,
      pollIntervalMs: options.pollIntervalMs,
      answersAtOnce: MemoryStore.answersAtOnce(store),
      send: (owner, sentAt) => {
        if (attempts.writesNext) {
          attempts.writesNext = false
          return write(owner, sentAt, attempts.lastHolder?.reservedBy === owner, attempts.orphan)
        }
        if (attempts.waitingOn !== undefined) return judgeThenWrite(owner, sentAt, attempts.waitingOn.holder)
        return attempts.looks ? lookThenWrite(owner, sentAt) : first(owner, sentAt)
      },
      judge: (result, owner, sentAt, now) => {
        attempts.lastHolder = LockAttempt.lastHolder(attempts.lastHolder, result)
        return LockAttempt.judge({ options, owner, result, sentAt, now })
      },
      conflict: (answer, owner, now) => conflict(answer.holder, owner, now),
      giveBack: (owner) => cleanup(args, owner),
      // An answer too late was our own record, and names no holder; a call in flight names the last conflict's.
      giveUp: (now, late) =>
        giveUp(args, late.unansweredAfterMs === undefined ? undefined : attempts.lastHolder, now, late)
    }),
    Effect.sync(() => waitOn(undefined, undefined))
  )
}
