/**
 * Judging the lease session a conflicting holder is under, for the acquire loops: one read of the session's record
 * (`SessionVerdict` decides), shared by every waiter of this process. A session found dead stays dead, so its verdict
 * is kept; one found alive is not read again before it could be judged dead; and waiters that ask while a read is in
 * flight wait for its verdict, so a thousand waiters on the locks of one session cost one read per judgement, not a
 * thousand. The waiters on a live session's locks are counted here too: they share their reads of those locks
 * (`SessionWaiting`).
 *
 * @internal
 */
import type { Observation } from "@leasehold/core/acquire/LockAttempt"
import * as LeaseSession from "@leasehold/core/session/LeaseSession"
import * as SessionVerdict from "@leasehold/core/session/SessionVerdict"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import type * as LockStore from "../../LockStore.js"
import * as EffectLine from "../effectLine.js"
import type * as Options from "../options/options.js"
import { outcome } from "../outcome.js"
import { monotonicMillis } from "../process/clock.js"

/** What this process knows of one session: dead, or alive with no judgement possible before `judgeAfter`. */
type Known =
  | { readonly _tag: "Dead" }
  | { readonly _tag: "Alive"; readonly judgeAfter: number; readonly observation: Observation | undefined }

/** Sessions kept per store at most: a process that judges ever new sessions forgets the oldest verdicts. */
const maxSessions = 1_000

/** What a process knows and does about the sessions of one store. */
interface Sessions {
  readonly known: Map<string, Known>
  /** The reads in flight, by session: a judge that asks meanwhile waits for the verdict. */
  readonly reading: Map<string, Deferred.Deferred<SessionVerdict.Verdict>>
  /** How many of this process's acquires wait on locks of each live session. */
  readonly waiters: Map<string, number>
}

const byStore = new WeakMap<LockStore.LockStore, Sessions>()

const sessionsOf = (store: LockStore.LockStore): Sessions => {
  let sessions = byStore.get(store)
  if (sessions === undefined) {
    sessions = { known: new Map(), reading: new Map(), waiters: new Map() }
    byStore.set(store, sessions)
  }
  return sessions
}

const remember = (sessions: Map<string, Known>, id: string, known: Known): void => {
  if (sessions.size >= maxSessions && !sessions.has(id)) sessions.delete(sessions.keys().next().value!)
  sessions.set(id, known)
}

/**
 * The verdict on the session `id`: `Dead`, or `Alive` with how long from now until a read could find it dead. A read
 * that fails judges nothing: the session counts as alive for a poll interval, so a store that fails never lets a
 * lock be taken from a session that may live.
 *
 * @internal
 */
export const judge = (
  store: LockStore.LockStore,
  id: string,
  options: Options.Resolved
): Effect.Effect<SessionVerdict.Verdict> =>
  Effect.suspend(() => {
    const sessions = sessionsOf(store)
    const inFlight = sessions.reading.get(id)
    if (inFlight !== undefined) return Deferred.await(inFlight)
    return Effect.flatMap(monotonicMillis, (now) => {
      const known = sessions.known.get(id)
      if (known?._tag === "Dead") return Effect.succeed(known)
      if (known !== undefined && now < known.judgeAfter) {
        return Effect.succeed(
          { _tag: "Alive", untilJudgedMs: known.judgeAfter - now, observation: known.observation } as const
        )
      }
      const done = EffectLine.deferredMakeUnsafe<SessionVerdict.Verdict>()
      sessions.reading.set(id, done)
      // Whatever ends the read (an interruption included) ends the wait of the others: they judge nothing from a
      // read that did not answer, as from one that failed.
      return Effect.onExit(read(store, sessions, id, options, now, known), (exit) =>
        Effect.sync(() => {
          sessions.reading.delete(id)
          EffectLine.deferredDoneUnsafe(
            done,
            Exit.isSuccess(exit) ? exit : Exit.succeed(unjudged(options, known))
          )
        }))
    })
  })

/** What a read that judged nothing leaves: alive for a poll interval. */
const unjudged = (options: Options.Resolved, known: Known | undefined): SessionVerdict.Verdict => ({
  _tag: "Alive",
  untilJudgedMs: options.pollIntervalMs,
  observation: known?._tag === "Alive" ? known.observation : undefined
})

/** One read of the session's record, sent at `now`, and the verdict on it, kept for the next judges. */
const read = (
  store: LockStore.LockStore,
  sessions: Sessions,
  id: string,
  options: Options.Resolved,
  now: number,
  known: Known | undefined
): Effect.Effect<SessionVerdict.Verdict> =>
  Effect.gen(function*() {
    const wallSentAt = yield* Clock.currentTimeMillis
    const answer = yield* outcome(store.inspect(LeaseSession.recordName(id)))
    const answeredAt = yield* monotonicMillis
    if (answer._tag === "Failure") return unjudged(options, known)
    const observation = known?._tag === "Alive" ? known.observation : undefined
    const verdict = SessionVerdict.judge({
      takeover: options.takeover,
      maxClockSkewMs: options.maxClockSkewMs,
      id,
      record: Option.getOrUndefined(answer.success),
      sentAt: now,
      answeredAt,
      wallSentAt,
      observation
    })
    remember(
      sessions.known,
      id,
      verdict._tag === "Dead"
        ? verdict
        : { _tag: "Alive", judgeAfter: answeredAt + verdict.untilJudgedMs, observation: verdict.observation }
    )
    return verdict
  })

/**
 * Counts an acquire of this process as waiting on a lock of the session `id`, until the returned function is called
 * (once).
 *
 * @internal
 */
export const waitOn = (store: LockStore.LockStore, id: string): () => void => {
  const { waiters } = sessionsOf(store)
  waiters.set(id, (waiters.get(id) ?? 0) + 1)
  return () => {
    const left = (waiters.get(id) ?? 1) - 1
    if (left === 0) waiters.delete(id)
    else waiters.set(id, left)
  }
}

/**
 * How many acquires of this process wait on locks of the session `id`.
 *
 * @internal
 */
export const waitersOn = (store: LockStore.LockStore, id: string): number => sessionsOf(store).waiters.get(id) ?? 0
