/**
 * What late delivery did in a simulation, on the Effect side: each process's store logging every write its calls
 * applied (below the fault wrapper, at the true time the store applied them), and the held writes as the fault
 * wrapper delivers them. The core's log judges what each sender had written meanwhile.
 *
 * @internal
 */
import type * as Fault from "@leasehold/core/simulation/Fault"
import * as LateDelivery from "@leasehold/core/simulation/LateDelivery"
import type { LockStore } from "@leasehold/lock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as FaultyStore from "../../FaultyStore.js"
import type { Timeline } from "./timeline.js"

const outcomeOf = (exit: Exit.Exit<unknown, unknown>): string =>
  Exit.isFailure(exit) ? "failed" : LateDelivery.outcomeOfAnswer(exit.value)

/** @internal */
export interface LateLog {
  readonly deliveries: ReadonlyArray<LateDelivery.DeliveryRecord>
  /** `backing` as `process` uses it, logging every write it applies. */
  readonly recording: (backing: LockStore.LockStore, process: string) => LockStore.LockStore
  /** Notes a held write of `process` delivered now. */
  readonly delivered: (delivery: FaultyStore.Delivery) => void
}

/** @internal */
export const makeLateLog = (timeline: Timeline): LateLog => {
  const log = LateDelivery.makeLog()

  const logged = <A extends { readonly _tag: string }, E, R extends LateDelivery.Applied["request"]>(
    process: string,
    operation: Fault.Operation,
    call: (request: R) => Effect.Effect<A, E>
  ) =>
  (request: R) =>
    Effect.tap(call(request), (result) =>
      Effect.sync(() => {
        log.applied({ at: timeline.now, process, operation, request, outcome: result._tag })
      }))

  /** A take of several locks in one call, logged as a write to each of them with its own request. */
  const loggedAll =
    (process: string, call: NonNullable<LockStore.LockStore["tryAcquireAll"]>) =>
    (request: LockStore.AcquireAllRequest) =>
      Effect.tap(call(request), (result) =>
        Effect.sync(() => {
          for (const one of request.requests) {
            log.applied({ at: timeline.now, process, operation: "tryAcquireAll", request: one, outcome: result._tag })
          }
        }))

  return {
    deliveries: log.deliveries,
    recording: (backing, process) => ({
      ...backing,
      tryAcquire: logged(process, "tryAcquire", backing.tryAcquire),
      ...(backing.tryAcquireAll === undefined ? {} : { tryAcquireAll: loggedAll(process, backing.tryAcquireAll) }),
      renew: logged(process, "renew", backing.renew),
      release: logged(process, "release", backing.release),
      reserve: logged(process, "reserve", backing.reserve),
      tryAcquirePermits: logged(process, "tryAcquirePermits", backing.tryAcquirePermits),
      renewPermits: logged(process, "renewPermits", backing.renewPermits),
      releasePermits: logged(process, "releasePermits", backing.releasePermits),
      reservePermits: logged(process, "reservePermits", backing.reservePermits)
    }),
    delivered: ({ call, exit, fault, heldMs, request }) =>
      log.delivered({ call, fault, request, heldMs, outcome: outcomeOf(exit) }, timeline.now)
  }
}
