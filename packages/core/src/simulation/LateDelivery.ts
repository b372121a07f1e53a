/**
 * What late delivery did in a simulation: the writes each process's calls applied, and every held write as it was
 * delivered, with what its sender had written to the same lock or semaphore between sending it and its delivery.
 *
 * @since 1.0.0
 */
import * as Fault from "./Fault.js"

/**
 * What the process that sent a held write had written to the same lock or semaphore by the time it was delivered:
 * any other write (`laterWrite`), a give-back by owner alone (`giveBack`, a release without a fence), an acquire that
 * succeeded (`acquired`), a release with a fence that freed it (`released`).
 *
 * @since 1.0.0
 * @category models
 */
export type LateAfter = "laterWrite" | "giveBack" | "acquired" | "released"

/**
 * A write the network held after its sender gave up on it, as it was delivered: when it was sent and applied (true
 * ms), what the store answered, and what its sender had written to the same name meanwhile.
 *
 * @since 1.0.0
 * @category models
 */
export interface DeliveryRecord {
  readonly call: Fault.Call
  readonly fault: Fault.Fault
  readonly name: string
  /** A take of several locks in one call (`tryAcquireAll`): the others it was for, `name` being the first. */
  readonly together?: ReadonlyArray<string> | undefined
  /** The fence the write named: a release without one is a give-back. */
  readonly fence: number | undefined
  /** Whether the write was to a semaphore (a permit operation) rather than a lock. */
  readonly semaphore: boolean
  /** True ms when its sender sent it, and when the store applied it. */
  readonly sentAt: number
  readonly at: number
  /** What the store answered (`Renewed`, `Lost`, `Released`, `NotHeld`, ...), or `failed`. */
  readonly outcome: string
  /** For a take of several locks, what its sender had written to any of them. */
  readonly after: ReadonlyArray<LateAfter>
}

/**
 * What a call asked, as far as the log reads it: a request object with a name and perhaps a fence, one with the
 * `requests` of a take of several locks, or the bare name of the operations that take one.
 *
 * @since 1.0.0
 * @category models
 */
export type Request = string | object

/**
 * One write a process's call applied, or that its condition refused, at true time `at`. A take of several locks in one
 * call is one of these per lock, each with that lock's request.
 *
 * @since 1.0.0
 * @category models
 */
export interface Applied {
  readonly at: number
  readonly process: string
  readonly operation: Fault.Operation
  readonly request: { readonly name: string; readonly fence?: number | undefined }
  readonly outcome: string
}

/**
 * A held write as the store applied it: the call and fault that held it, the very request object, how long the
 * network held it, and what the store answered (`failed` if it failed).
 *
 * @since 1.0.0
 * @category models
 */
export interface Delivered {
  readonly call: Fault.Call
  readonly fault: Fault.Fault
  readonly request: Request
  readonly heldMs: number
  readonly outcome: string
}

/**
 * What the store answered a held write that it applied, as a delivery shows it: the answer's tag (`Renewed`, `Lost`,
 * `Released`, `NotHeld`, ...), or `answered` for an answer without one. A call that failed shows as `failed`.
 *
 * @since 1.0.0
 * @category outcomes
 */
export const outcomeOfAnswer = (answer: unknown): string => {
  const value = answer as { readonly _tag?: unknown } | undefined
  return typeof value?._tag === "string" ? value._tag : "answered"
}

/**
 * The log of one run.
 *
 * @since 1.0.0
 * @category models
 */
export interface LateLog {
  readonly deliveries: Array<DeliveryRecord>
  /** Notes a write a process applied (recorded below the fault wrapper, at the true time the store applied it). */
  readonly applied: (applied: Applied) => void
  /** Notes a held write delivered at true time `now`. */
  readonly delivered: (delivered: Delivered, now: number) => void
}

const releases: ReadonlySet<Fault.Operation> = new Set(["release", "releasePermits"])

const nameOf = (request: Request): string =>
  typeof request === "string" ? request : "name" in request ? String(request.name) : ""

/** The requests of a take of several locks in one call, or `undefined` for any other. */
const partsOf = (request: Request): ReadonlyArray<object> | undefined =>
  typeof request === "object" && "requests" in request && Array.isArray(request.requests) ? request.requests : undefined

const fenceOf = (request: Request): number | undefined =>
  typeof request === "object" && "fence" in request ? request.fence as number | undefined : undefined

/** What `since`, the sender's writes to the name after it sent a held one, did. */
const afterOf = (since: ReadonlyArray<Applied>): Array<LateAfter> => {
  const after: Array<LateAfter> = []
  if (since.length > 0) after.push("laterWrite")
  const released = since.filter((a) => releases.has(a.operation))
  if (released.some((a) => a.request.fence === undefined)) after.push("giveBack")
  if (since.some((a) => Fault.isAcquire(a.operation) && a.outcome === "Acquired")) after.push("acquired")
  if (released.some((a) => a.request.fence !== undefined && a.outcome === "Released")) after.push("released")
  return after
}

/**
 * An empty log.
 *
 * @since 1.0.0
 * @category constructors
 */
export const makeLog = (): LateLog => {
  const applied: Array<Applied> = []
  const deliveries: Array<DeliveryRecord> = []
  return {
    deliveries,
    applied: (a) => {
      applied.push(a)
    },
    delivered: ({ call, fault, heldMs, outcome, request }, now) => {
      const parts = partsOf(request)
      const names = parts === undefined ? [nameOf(request)] : parts.map(nameOf)
      const [name = "", ...together] = names
      const semaphore = Fault.isPermitOperation(call.operation)
      const sentAt = now - heldMs
      // The held write itself was logged as it applied: the same request object (each of its parts for a take of
      // several locks), as is a copy sent again.
      const own = new Set<unknown>(parts ?? [request])
      const since = applied.filter((a) =>
        a.process === call.process && names.includes(a.request.name) &&
        Fault.isPermitOperation(a.operation) === semaphore && a.at > sentAt && !own.has(a.request)
      )
      deliveries.push({
        call,
        fault,
        name,
        ...(parts === undefined ? {} : { together }),
        fence: fenceOf(request),
        semaphore,
        sentAt,
        at: now,
        outcome,
        after: afterOf(since)
      })
    }
  }
}
