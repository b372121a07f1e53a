/**
 * The loop both acquires (a lock's, a semaphore's) run: send an attempt as the acquire's owner, read its outcome, and
 * take the step the core decides (`@leasehold/core/acquire/AcquireStep`): on a store failure, fail or sleep a jittered
 * poll; on an answer too late to use, give it back, take a fresh owner id, warn, and retry or give up; on a conflict,
 * the loop's own handling, which ends in the next attempt at once or a sleep. All of it is bounded by
 * `AcquireBound.bound`. What differs between the loops (the request, the judge, the conflict handling, the span
 * attribute, the words of the warning) is passed in.
 *
 * @internal
 */
import * as AcquireBoundCore from "@leasehold/core/acquire/AcquireBound"
import * as AcquireStep from "@leasehold/core/acquire/AcquireStep"
import type { LockRecord } from "@leasehold/core/record/LockRecord"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type { LockNotAcquired, LockStoreError } from "../../LockError.js"
import { outcome } from "../outcome.js"
import { monotonicMillis } from "../process/clock.js"
import * as Metrics from "../process/metrics.js"
import * as AcquireBound from "./acquireBound.js"
import * as AcquireOwner from "./acquireOwner.js"

/** @internal */
export interface Acquired {
  readonly record: LockRecord
  /** Monotonic ms just before the write that set the current lease was sent (or an equally safe estimate). */
  readonly sentAt: number
  /** Monotonic ms when its answer arrived: when the lease began to be held. */
  readonly answeredAt: number
}

/**
 * The answers a loop handles in its own way: a conflict, and a semaphore's limit mismatch.
 *
 * @internal
 */
export interface OwnAnswer {
  readonly _tag: "Conflict" | "LimitMismatch"
}

/**
 * An answer as a loop's judge tells it: ours, ours too late to use, or one of the loop's own.
 *
 * @internal
 */
export type Judged<Other extends OwnAnswer> =
  | { readonly _tag: "Acquired"; readonly record: LockRecord; readonly sentAt: number }
  | { readonly _tag: "TooLate"; readonly answeredAfterMs: number }
  | Other

/**
 * What a loop does in its own way.
 *
 * @internal
 */
export interface Loop<Result, Other extends OwnAnswer, E> {
  /** The span attribute that carries the owner id the attempts write with. */
  readonly ownerAttribute: string
  /** The warning after an answer too late to use. */
  readonly tooLateWarning: string
  /** Monotonic ms when `wait` runs out: `Infinity` when it never does. */
  readonly waitUntil: number
  readonly pollIntervalMs: number
  /** Whether the store answers at once (see `AcquireBound.bound`). */
  readonly answersAtOnce: boolean
  /** The attempt sent at `sentAt` (monotonic ms), written as `owner`. */
  readonly send: (owner: string, sentAt: number) => Effect.Effect<Result, LockStoreError>
  /** What `result` means: the answer at `now` of the attempt sent at `sentAt`, written as `owner`. */
  readonly judge: (result: Result, owner: AcquireOwner.AcquireOwner, sentAt: number, now: number) => Judged<Other>
  /**
   * What follows any other answer (a conflict, counted before), at `now`, written as `owner`, `eager` attempts after
   * the last sleep: the next attempt at once or a sleep, or an end of the loop's own (giving up, a failure of its own).
   */
  readonly conflict: (
    answer: Other,
    owner: string,
    now: number,
    eager: number
  ) => Effect.Effect<AcquireStep.Again | AcquireStep.Sleep, E>
  /** Gives back by owner whatever the writes of `owner` may have left held. */
  readonly giveBack: (owner: string) => Effect.Effect<void>
  /** Gives up at `now`, after an answer too late to use or with a call unanswered past the wait's slack. */
  readonly giveUp: (now: number, late: AcquireBound.Late) => Effect.Effect<never, LockNotAcquired>
}

/**
 * Tries until acquired or `wait` passes, plus `waitSlackMs` for a call in flight. Interruptible everywhere; if it ends
 * without acquiring after a write that may have applied, it gives the write back by owner (see `AcquireBound.bound`).
 *
 * @internal
 */
export const run = <Result, Other extends OwnAnswer, E>(
  loop: Loop<Result, Other, E>
): Effect.Effect<Acquired, LockNotAcquired | LockStoreError | E> => {
  const { pollIntervalMs, waitUntil } = loop
  const owner = AcquireOwner.make()
  /** Attempts since the last sleep. */
  let eager = 0

  const attempt = (sentAt: number) =>
    Effect.suspend(() => {
      AcquireOwner.sending(owner, sentAt)
      eager += 1
      return loop.send(owner.owner, sentAt)
    })

  const sleep = (step: AcquireStep.Sleep, now: number) => {
    eager = 0
    if (step.sleepMs !== undefined) {
      return Effect.sleep(Duration.millis(AcquireBoundCore.conflictSleepMs(step.sleepMs, now, waitUntil)))
    }
    return Effect.flatMap(
      AcquireBound.jitteredPoll(pollIntervalMs),
      (pollMs) => Effect.sleep(Duration.millis(AcquireBoundCore.retrySleepMs(pollMs, now, waitUntil)))
    )
  }

  const attempts: Effect.Effect<Acquired, LockNotAcquired | LockStoreError | E> = Effect.gen(function*() {
    // The span of the acquire already carries the name.
    yield* Effect.annotateCurrentSpan(loop.ownerAttribute, owner.owner)
    while (true) {
      const sentAt = yield* monotonicMillis
      const result = yield* outcome(attempt(sentAt))
      const now = yield* monotonicMillis
      let step: AcquireStep.Step
      if (result._tag === "Failure") {
        AcquireOwner.failed(owner, result.failure)
        step = AcquireStep.afterFailure(result.failure.retryable, now, waitUntil)
        if (step._tag === "Fail") return yield* Effect.fail(result.failure)
      } else {
        AcquireOwner.answered(owner)
        const answer = loop.judge(result.success, owner, sentAt, now)
        if (answer._tag === "Acquired") return { record: answer.record, sentAt: answer.sentAt, answeredAt: now }
        if (answer._tag === "TooLate") {
          step = AcquireStep.afterTooLate(answer.answeredAfterMs, now, waitUntil)
        } else {
          if (answer._tag === "Conflict") yield* Metrics.increment(Metrics.conflicts)
          step = yield* loop.conflict(answer, owner.owner, now, eager)
        }
      }
      if (step._tag === "GiveBack") {
        // If the give-back fails, what it gives back stays under the old owner id until its lease is over, as any
        // holder's that stopped renewing.
        yield* loop.giveBack(owner.owner)
        AcquireOwner.renew(owner)
        yield* Effect.annotateCurrentSpan(loop.ownerAttribute, owner.owner)
        yield* Effect.logWarning(loop.tooLateWarning)
        if (step.then._tag === "GiveUp") return yield* loop.giveUp(now, { answeredAfterMs: step.then.answeredAfterMs })
        step = step.then
      }
      if (step._tag === "Sleep") yield* sleep(step, now)
    }
  })

  return AcquireBound.bound({
    loop: attempts,
    mayHaveWritten: () => AcquireOwner.mayHaveWritten(owner),
    giveBack: Effect.suspend(() => loop.giveBack(owner.owner)),
    answersAtOnce: loop.answersAtOnce,
    waitUntil,
    unanswered: (now) => loop.giveUp(now, { unansweredAfterMs: now - waitUntil })
  })
}
