/**
 * The memory store's semaphores: the semaphore operations of the store contract in one process, with time read
 * through `Clock`. Semaphores live in a map of their own, so a lock and a semaphore of the same name never meet. Their
 * rules are the core's (`SemaphoreTransitions`); this module keeps the records and reads the clock.
 *
 * As in `memoryStore.ts`, each operation is one `Effect.sync` after reading the clock, so it is atomic, as DynamoDB's
 * one conditional write per operation is.
 *
 * @internal
 */
import * as LockName from "@leasehold/core/record/LockName"
import type { SemaphoreRecord } from "@leasehold/core/record/SemaphoreRecord"
import * as NameRefusal from "@leasehold/core/store/NameRefusal"
import * as SemaphoreTransitions from "@leasehold/core/store/SemaphoreTransitions"
import * as Transition from "@leasehold/core/store/Transition"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import { LockStoreError, type StoreOperation } from "../../LockError.js"
import type * as SemaphoreStore from "../../SemaphoreStore.js"

import * as Checks from "@leasehold/core/store/SemaphoreChecks"

/** The name's problem as a lock's (`LockName`), against the budget of a semaphore name: a byte under a lock's. */
const nameProblem = (name: string, maxNameBytes: number): string | undefined => {
  const problem = LockName.problem(name, maxNameBytes)
  return problem === undefined ? undefined : NameRefusal.semaphore(problem, maxNameBytes)
}

/** Runs `run` at the clock's time, or refuses the request, unsent, with what is wrong with it. */
const checked = <A>(
  operation: StoreOperation,
  problem: () => string | undefined,
  run: (now: number) => A
): Effect.Effect<A, LockStoreError> =>
  Effect.suspend(() => {
    const message = problem()
    return message === undefined
      ? Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sync(() => run(now)))
      : Effect.fail(new LockStoreError({ operation, retryable: false, mayHaveApplied: false, message }))
  })

/** @internal */
export const make = (maxLockNameBytes: number): SemaphoreStore.SemaphoreOperations => {
  const records = new Map<string, SemaphoreRecord>()
  const maxNameBytes = Checks.maxNameBytes(maxLockNameBytes)
  const named = (name: string, problem: () => string | undefined) => () => nameProblem(name, maxNameBytes) ?? problem()

  const tryAcquirePermits = (request: SemaphoreStore.AcquirePermitsRequest) =>
    checked(
      "tryAcquirePermits",
      named(request.name, () => Checks.acquireProblem(request)),
      (now) =>
        Transition.apply(records, request.name, (current) =>
          SemaphoreTransitions.tryAcquirePermits(current, request, now))
    )

  const renewPermits = (request: SemaphoreStore.RenewPermitsRequest) =>
    checked(
      "renewPermits",
      named(request.name, () => Checks.renewProblem(request)),
      (now) =>
        Transition.apply(records, request.name, (current) => SemaphoreTransitions.renewPermits(current, request, now))
    )

  const releasePermits = (request: SemaphoreStore.ReleasePermitsRequest) =>
    checked(
      "releasePermits",
      named(request.name, () => Checks.releaseProblem(request)),
      () => Transition.apply(records, request.name, (current) => SemaphoreTransitions.releasePermits(current, request))
    )

  const reservePermits = (request: SemaphoreStore.ReservePermitsRequest) =>
    checked(
      "reservePermits",
      named(request.name, () => Checks.reserveProblem(request)),
      (now) =>
        Transition.apply(records, request.name, (current) => SemaphoreTransitions.reservePermits(current, request, now))
    )

  const inspectSemaphore = (name: string) =>
    checked(
      "inspectSemaphore",
      named(name, () => undefined),
      () => Option.liftPredicate(records.get(name), Predicate.isNotUndefined)
    )

  return { tryAcquirePermits, renewPermits, releasePermits, reservePermits, inspectSemaphore }
}
