/**
 * What late delivery did in a simulation: the writes each process's calls applied (recorded below the fault wrapper,
 * at the true time the store applied them), and every held write as it was delivered, with what its sender had
 * written to the same lock or semaphore between sending it and its delivery.
 *
 * @internal
 */
import type { LockStore } from "@leasehold/lock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as FaultyStore from "../../FaultyStore.js"
import type { Timeline } from "../timeline.js"

/** @internal */
export type LateAfter = "laterWrite" | "giveBack" | "acquired" | "released"

/** @internal */
export interface DeliveryRecord {
  readonly call: FaultyStore.Call
  readonly fault: FaultyStore.Fault
  readonly name: string
  /** The fence the write named: a release without one is a give-back. */
  readonly fence: number | undefined
  /** Whether the write was to a semaphore (a permit operation) rather than a lock. */
  readonly semaphore: boolean
  /** True ms when its sender sent it, and when the store applied it. */
  readonly sentAt: number
  readonly at: number
  /** What the store answered (`Renewed`, `Lost`, `Released`, `NotHeld`, ...), or `failed`. */
  readonly outcome: string
  readonly after: ReadonlyArray<LateAfter>
}

/** One write a process's call applied, or was refused by its condition. */
interface Applied {
  readonly at: number
  readonly process: string
  readonly operation: FaultyStore.Operation
  readonly request: { readonly name: string; readonly fence?: number | undefined }
  readonly outcome: string
}

const permitOperations: ReadonlySet<FaultyStore.Operation> = new Set([
  "tryAcquirePermits",
  "renewPermits",
  "releasePermits"
])
const acquires: ReadonlySet<FaultyStore.Operation> = new Set(["tryAcquire", "tryAcquirePermits"])
const releases: ReadonlySet<FaultyStore.Operation> = new Set(["release", "releasePermits"])

const nameOf = (request: FaultyStore.Request): string =>
  typeof request === "string" ? request : "name" in request ? request.name : ""

const fenceOf = (request: FaultyStore.Request): number | undefined =>
  typeof request === "object" && "fence" in request ? request.fence : undefined

const outcomeOf = (exit: Exit.Exit<unknown, unknown>): string => {
  if (Exit.isFailure(exit)) return "failed"
  const value = exit.value as { readonly _tag?: unknown } | undefined
  return typeof value?._tag === "string" ? value._tag : "answered"
}

/** What `since`, the sender's writes to the name after it sent a held one, did. */
const afterOf = (since: ReadonlyArray<Applied>): Array<LateAfter> => {
  const after: Array<LateAfter> = []
  if (since.length > 0) after.push("laterWrite")
  const released = since.filter((a) => releases.has(a.operation))
  if (released.some((a) => a.request.fence === undefined)) after.push("giveBack")
  if (since.some((a) => acquires.has(a.operation) && a.outcome === "Acquired")) after.push("acquired")
  if (released.some((a) => a.request.fence !== undefined && a.outcome === "Released")) after.push("released")
  return after
}

/** @internal */
export interface LateLog {
  readonly deliveries: Array<DeliveryRecord>
  /** `backing` as `process` uses it, logging every write it applies. */
  readonly recording: (backing: LockStore.LockStore, process: string) => LockStore.LockStore
  /** Notes a held write of `process` delivered now. */
  readonly delivered: (delivery: FaultyStore.Delivery) => void
}

/** @internal */
export const makeLateLog = (timeline: Timeline): LateLog => {
  const applied: Array<Applied> = []
  const deliveries: Array<DeliveryRecord> = []

  const logged = <A extends { readonly _tag: string }, E, R extends Applied["request"]>(
    process: string,
    operation: FaultyStore.Operation,
    call: (request: R) => Effect.Effect<A, E>
  ) =>
  (request: R) =>
    Effect.tap(call(request), (result) =>
      Effect.sync(() => {
        applied.push({ at: timeline.now, process, operation, request, outcome: result._tag })
      }))

  return {
    deliveries,
    recording: (backing, process) => ({
      ...backing,
      tryAcquire: logged(process, "tryAcquire", backing.tryAcquire),
      renew: logged(process, "renew", backing.renew),
      release: logged(process, "release", backing.release),
      reserve: logged(process, "reserve", backing.reserve),
      tryAcquirePermits: logged(process, "tryAcquirePermits", backing.tryAcquirePermits),
      renewPermits: logged(process, "renewPermits", backing.renewPermits),
      releasePermits: logged(process, "releasePermits", backing.releasePermits)
    }),
    delivered: ({ call, exit, fault, heldMs, request }) => {
      const name = nameOf(request)
      const semaphore = permitOperations.has(call.operation)
      const sentAt = timeline.now - heldMs
      // The held write itself was logged as it applied: the same request object, as is a copy sent again.
      const since = applied.filter((a) =>
        a.process === call.process && a.request.name === name && permitOperations.has(a.operation) === semaphore &&
        a.at > sentAt && a.request !== request
      )
      deliveries.push({
        call,
        fault,
        name,
        fence: fenceOf(request),
        semaphore,
        sentAt,
        at: timeline.now,
        outcome: outcomeOf(exit),
        after: afterOf(since)
      })
    }
  }
}
