/**
 * What every store refuses in a semaphore request before writing anything: the checks behind
 * `SemaphoreStore.acquireProblem`, `renewProblem` and `releaseProblem`. Every store runs them, so that a request the
 * memory store takes is one DynamoDB takes (an owner id is a map key there, and every holder's fields share one item).
 *
 * @since 1.0.0
 */
import { payloadProblem, sequenceProblem } from "../record/LockRecord.js"
import * as SemaphoreRecord from "../record/SemaphoreRecord.js"
import * as Utf8 from "../record/Utf8.js"
import type * as SemaphoreProtocol from "./SemaphoreProtocol.js"

const show = (value: unknown): string => typeof value === "string" ? JSON.stringify(value) : String(value)

const isWhole = (value: unknown, min: number): value is number =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= min

/**
 * The longest semaphore name a store takes, in UTF-8 bytes, from its lock names' budget: one byte less, since a
 * semaphore's key is marked apart from every lock's with one more byte.
 *
 * @since 1.0.0
 * @category constants
 */
export const maxNameBytes = (maxLockNameBytes: number): number => maxLockNameBytes - 1

/**
 * What is wrong with an owner id (`what` names it in the message), or `undefined`: a non-empty, well-formed string of
 * at most `SemaphoreRecord.maxOwnerBytes` UTF-8 bytes.
 *
 * @since 1.0.0
 * @category validation
 */
export const ownerProblem = (owner: unknown, what: string = "owner"): string | undefined => {
  if (typeof owner !== "string") return `${what} must be a string; got ${typeof owner}`
  if (owner.length === 0) return `${what} must not be empty`
  if (!Utf8.isWellFormed(owner)) return `${what} is not well-formed Unicode (it holds a lone surrogate)`
  return Utf8.fits(owner, SemaphoreRecord.maxOwnerBytes)
    ? undefined
    : `${what} is ${Utf8.byteLength(owner)} UTF-8 bytes, over the limit of ${SemaphoreRecord.maxOwnerBytes}`
}

const leaseProblem = (leaseMs: unknown): string | undefined =>
  isWhole(leaseMs, 1) ? undefined : `leaseMs ${show(leaseMs)} is not a whole number of milliseconds over 0`

const takeoverProblem = (takeover: SemaphoreProtocol.PermitTakeover): string | undefined => {
  if (takeover._tag === "Observed") return undefined
  if (takeover._tag !== "Absolute") return `takeover must be Absolute or Observed; got ${show(takeover)}`
  const skew = takeover.maxClockSkewMs
  return typeof skew === "number" && Number.isFinite(skew) && skew >= 0
    ? undefined
    : `maxClockSkewMs ${show(skew)} is not a finite number of 0 or more`
}

/** Holders that could be in a record of this limit, none of them the caller. */
const expiredProblem = (request: SemaphoreProtocol.AcquirePermitsRequest): string | undefined => {
  const { expired, limit } = request
  if (!Array.isArray(expired)) return `expired must be an array of holders; got ${typeof expired}`
  const owners = new Set<string>()
  let permits = 0
  for (const item of expired as ReadonlyArray<unknown>) {
    if (typeof item !== "object" || item === null) return `expired holds ${show(item)}, not a holder`
    const entry = item as SemaphoreProtocol.ExpiredPermit
    const owner = ownerProblem(entry.owner, "an expired holder's owner")
    if (owner !== undefined) return owner
    if (entry.owner === request.owner) return "expired names the caller's own owner id"
    if (owners.has(entry.owner)) return `expired names the owner ${show(entry.owner)} twice`
    owners.add(entry.owner)
    if (!isWhole(entry.permits, 1) || entry.permits > limit) {
      return `expired holder ${show(entry.owner)} has permits ${show(entry.permits)}, not a whole number from 1 to ` +
        `the limit (${limit})`
    }
    if (!isWhole(entry.version, 0)) {
      return `expired holder ${show(entry.owner)} has version ${show(entry.version)}, not a whole number`
    }
    permits += entry.permits
  }
  return permits > limit ? `expired holders hold ${permits} permits in all, more than the limit (${limit})` : undefined
}

/**
 * What is wrong with an acquire request, its name aside, or `undefined`: the first problem of its owner, holder,
 * limit and permits, lease, data, takeover and expired holders, in that order.
 *
 * @since 1.0.0
 * @category validation
 */
export const acquireProblem = (request: SemaphoreProtocol.AcquirePermitsRequest): string | undefined =>
  ownerProblem(request.owner) ??
    payloadProblem({ holder: request.holder, data: undefined })?.message ??
    SemaphoreRecord.permitsProblem(request.limit, request.permits) ??
    leaseProblem(request.leaseMs) ??
    SemaphoreRecord.dataProblem(request.data) ??
    takeoverProblem(request.takeover) ??
    expiredProblem(request)

/**
 * What is wrong with a renew request, its name aside, or `undefined`.
 *
 * @since 1.0.0
 * @category validation
 */
export const renewProblem = (request: SemaphoreProtocol.RenewPermitsRequest): string | undefined =>
  ownerProblem(request.owner) ??
    (isWhole(request.fence, 0) ? undefined : `fence ${show(request.fence)} is not a whole number`) ??
    leaseProblem(request.leaseMs) ?? sequenceProblem(request.sequence)

/**
 * What is wrong with a release request, its name aside, or `undefined`.
 *
 * @since 1.0.0
 * @category validation
 */
export const releaseProblem = (request: SemaphoreProtocol.ReleasePermitsRequest): string | undefined =>
  ownerProblem(request.owner) ??
    (request.fence === undefined || isWhole(request.fence, 0)
      ? undefined
      : `fence ${show(request.fence)} is not a whole number`) ??
    (isWhole(request.permits, 1) && request.permits <= SemaphoreRecord.maxLimit
      ? undefined
      : `permits ${show(request.permits)} is not a whole number from 1 to ${SemaphoreRecord.maxLimit}`)

/**
 * What is wrong with a reserve request, its name aside, or `undefined`: the owner, limit and permits as an acquire's,
 * and finite times (a reservation over 0 ms, a grace from 0, an epoch ms for when the caller began to wait).
 *
 * @since 1.0.0
 * @category validation
 */
export const reserveProblem = (request: SemaphoreProtocol.ReservePermitsRequest): string | undefined =>
  ownerProblem(request.owner) ??
    SemaphoreRecord.permitsProblem(request.limit, request.permits) ??
    (isTime(request.reserveMs) && request.reserveMs > 0
      ? undefined
      : `reserveMs ${show(request.reserveMs)} is not a number of ms over 0`) ??
    (isTime(request.graceMs) ? undefined : `graceMs ${show(request.graceMs)} is not a number of ms from 0`) ??
    (isTime(request.waitingSince) ? undefined : `waitingSince ${show(request.waitingSince)} is not an epoch ms`)

const isTime = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value) && value >= 0
