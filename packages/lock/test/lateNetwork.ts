/**
 * A network that delivers writes late: a wrapper of a store (a process of its own) that can hold a call its caller
 * gives up on, and deliver it later, as built when it was sent. The stores read the time of a request when they build
 * it (DynamoDB's store puts `leaseUntil` and `now` into the request), so a held call is delivered under a clock that
 * reads its send time.
 */
import { LockError, type LockStore } from "@leasehold/lock"
import { type Clock, Effect } from "effect"
import { currentTimeMillisUnsafe, makeClock, withClock } from "./effectLine.js"
import { noCalls, type OperationName, outcome } from "./support.js"

/** What the caller of a held call sees: a retryable timeout at once, or no answer until it gives up. */
export type GiveUp = "timeout" | "hang"

interface Held {
  readonly operation: OperationName
  readonly deliver: Effect.Effect<void>
}

export interface LateNetwork {
  readonly service: LockStore.LockStore
  readonly calls: Record<OperationName, number>
  /** Holds the next call of `operation` whose request passes `when`; its caller sees `giveUp`. */
  readonly holdNext: (operation: OperationName, giveUp: GiveUp, when?: (request: any) => boolean) => void
  /** Delays the answers of every following call of `operation` by `ms` (the write applies at once). */
  readonly answerLate: (operation: OperationName, ms: number | undefined) => void
  /** Makes every following call of `operation` fail with a retryable store error, without applying. */
  readonly failing: (operation: OperationName, on: boolean) => void
  /** How many calls are held. */
  readonly heldCount: () => number
  /** Delivers the held calls, oldest first, each under a clock that reads its send time. */
  readonly deliver: Effect.Effect<void>
}

/** A clock that reads `millis`, for a request built at that time; it sleeps as `base` does. */
const clockAt = (millis: number, base: Clock.Clock): Clock.Clock =>
  makeClock(() => millis, () => BigInt(millis) * 1_000_000n, (duration) => base.sleep(duration))

const timedOut = (operation: OperationName) =>
  new LockError.LockStoreError({ operation, retryable: true, message: `${operation} timed out (held by the network)` })

/** A process over `backing` whose network can hold and delay its calls. */
export const make = (backing: LockStore.LockStore): LateNetwork => {
  const calls = noCalls()
  const held: Array<Held> = []
  const holds = new Map<OperationName, { giveUp: GiveUp; when: (request: any) => boolean }>()
  const late = new Map<OperationName, number>()
  const failingOps = new Set<OperationName>()

  const through =
    <Req, A>(operation: OperationName, call: (request: Req) => Effect.Effect<A, LockError.LockStoreError>) =>
    (request: Req): Effect.Effect<A, LockError.LockStoreError> =>
      Effect.clockWith((clock) => {
        calls[operation]++
        if (failingOps.has(operation)) return Effect.fail(timedOut(operation))
        const hold = holds.get(operation)
        if (hold !== undefined && hold.when(request)) {
          holds.delete(operation)
          const sentAt = currentTimeMillisUnsafe(clock)
          held.push({
            operation,
            deliver: Effect.asVoid(outcome(call(request).pipe(withClock(clockAt(sentAt, clock)))))
          })
          return hold.giveUp === "timeout" ? Effect.fail(timedOut(operation)) : Effect.never
        }
        const delay = late.get(operation)
        return delay === undefined ? call(request) : Effect.tap(call(request), Effect.sleep(delay))
      })

  const service: LockStore.LockStore = {
    tryAcquire: through("tryAcquire", backing.tryAcquire),
    renew: through("renew", backing.renew),
    release: through("release", backing.release),
    reserve: through("reserve", backing.reserve),
    inspect: through("inspect", backing.inspect),
    list: through("list", backing.list),
    forceRelease: (name, holder) => through("forceRelease", (n: string) => backing.forceRelease(n, holder))(name),
    tryAcquirePermits: through("tryAcquirePermits", backing.tryAcquirePermits),
    renewPermits: through("renewPermits", backing.renewPermits),
    releasePermits: through("releasePermits", backing.releasePermits),
    reservePermits: through("reservePermits", backing.reservePermits),
    inspectSemaphore: through("inspectSemaphore", backing.inspectSemaphore),
    maxNameBytes: backing.maxNameBytes,
    nameProblem: backing.nameProblem,
    semaphoreNameProblem: backing.semaphoreNameProblem,
    semaphoreLeaseProblem: backing.semaphoreLeaseProblem
  }

  return {
    service,
    calls,
    holdNext: (operation, giveUp, when = () => true) => holds.set(operation, { giveUp, when }),
    answerLate: (operation, ms) => ms === undefined ? late.delete(operation) : late.set(operation, ms),
    failing: (operation, on) => on ? failingOps.add(operation) : failingOps.delete(operation),
    heldCount: () => held.length,
    deliver: Effect.suspend(() => Effect.forEach(held.splice(0), (call) => call.deliver, { discard: true }))
  }
}
