/**
 * Judging the lease session a conflicting holder is under, for the acquire loop: one read of the session's record
 * (`SessionVerdict` decides), shared by every waiter of this process. A session found dead stays dead, so its verdict
 * is kept; one found alive is not read again before it could be judged dead, so a thousand waiters on the locks of one
 * session cost one read per judgement, not a thousand.
 *
 * @internal
 */
import type { Observation } from "@leasehold/core/acquire/LockAttempt"
import * as LeaseSession from "@leasehold/core/session/LeaseSession"
import * as SessionVerdict from "@leasehold/core/session/SessionVerdict"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as LockStore from "../../LockStore.js"
import type * as Options from "../options/options.js"
import { outcome } from "../outcome.js"
import { monotonicMillis } from "../process/clock.js"

/** What this process knows of one session: dead, or alive with no judgement possible before `judgeAfter`. */
type Known =
  | { readonly _tag: "Dead" }
  | { readonly _tag: "Alive"; readonly judgeAfter: number; readonly observation: Observation | undefined }

/** Sessions kept per store at most: a process that judges ever new sessions forgets the oldest verdicts. */
const maxSessions = 1_000

const byStore = new WeakMap<LockStore.LockStore, Map<string, Known>>()

const knownOf = (store: LockStore.LockStore): Map<string, Known> => {
  let sessions = byStore.get(store)
  if (sessions === undefined) {
    sessions = new Map()
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
  Effect.gen(function*() {
    const sessions = knownOf(store)
    const known = sessions.get(id)
    const now = yield* monotonicMillis
    if (known?._tag === "Dead") return known
    if (known !== undefined && now < known.judgeAfter) {
      return { _tag: "Alive", untilJudgedMs: known.judgeAfter - now, observation: known.observation } as const
    }
    const wallSentAt = yield* Clock.currentTimeMillis
    const read = yield* outcome(store.inspect(LeaseSession.recordName(id)))
    const answeredAt = yield* monotonicMillis
    if (read._tag === "Failure") {
      return { _tag: "Alive", untilJudgedMs: options.pollIntervalMs, observation: known?.observation } as const
    }
    const verdict = SessionVerdict.judge({
      takeover: options.takeover,
      maxClockSkewMs: options.maxClockSkewMs,
      id,
      record: Option.getOrUndefined(read.success),
      sentAt: now,
      answeredAt,
      wallSentAt,
      observation: known?.observation
    })
    remember(
      sessions,
      id,
      verdict._tag === "Dead"
        ? verdict
        : { _tag: "Alive", judgeAfter: answeredAt + verdict.untilJudgedMs, observation: verdict.observation }
    )
    return verdict
  })
