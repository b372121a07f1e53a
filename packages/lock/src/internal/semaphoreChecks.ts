/**
 * What every store refuses in a semaphore request before writing anything: the checks behind
 * `SemaphoreStore.acquireProblem`, `renewProblem` and `releaseProblem`. Both stores run them, so that a request the
 * memory store takes is one DynamoDB takes (an owner id is a map key there, and every holder's fields share one item).
 *
 * @internal
 */
import { payloadProblem, sequenceProblem } from "../LockRecord.js"
import * as SemaphoreRecord from "../SemaphoreRecord.js"
import type * as SemaphoreStore from "../SemaphoreStore.js"
import * as Utf8 from "../Utf8.js"

const show = (value: unknown): string => typeof value === "string" ? JSON.stringify(value) : String(value)

const isWhole = (value: unknown, min: number): value is number =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= min

/** @internal */
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

const takeoverProblem = (takeover: SemaphoreStore.PermitTakeover): string | undefined => {
  if (takeover._tag === "Observed") return undefined
  if (takeover._tag !== "Absolute") return `takeover must be Absolute or Observed; got ${show(takeover)}`
  const skew = takeover.maxClockSkewMs
  return typeof skew === "number" && Number.isFinite(skew) && skew >= 0
    ? undefined
    : `maxClockSkewMs ${show(skew)} is not a finite number of 0 or more`
}

/** Holders that could be in a record of this limit, none of them the caller. */
const expiredProblem = (request: SemaphoreStore.AcquirePermitsRequest): string | undefined => {
  const { expired, limit } = request
  if (!Array.isArray(expired)) return `expired must be an array of holders; got ${typeof expired}`
  const owners = new Set<string>()
  let permits = 0
  for (const item of expired as ReadonlyArray<unknown>) {
    if (typeof item !== "object" || item === null) return `expired holds ${show(item)}, not a holder`
    const entry = item as SemaphoreStore.ExpiredPermit
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

/** @internal */
export const acquireProblem = (request: SemaphoreStore.AcquirePermitsRequest): string | undefined =>
  ownerProblem(request.owner) ??
    payloadProblem({ holder: request.holder, data: undefined })?.message ??
    SemaphoreRecord.permitsProblem(request.limit, request.permits) ??
    leaseProblem(request.leaseMs) ??
    SemaphoreRecord.dataProblem(request.data) ??
    takeoverProblem(request.takeover) ??
    expiredProblem(request)

/** @internal */
export const renewProblem = (request: SemaphoreStore.RenewPermitsRequest): string | undefined =>
  ownerProblem(request.owner) ??
    (isWhole(request.fence, 0) ? undefined : `fence ${show(request.fence)} is not a whole number`) ??
    leaseProblem(request.leaseMs) ?? sequenceProblem(request.sequence)

/** @internal */
export const releaseProblem = (request: SemaphoreStore.ReleasePermitsRequest): string | undefined =>
  ownerProblem(request.owner) ??
    (request.fence === undefined || isWhole(request.fence, 0)
      ? undefined
      : `fence ${show(request.fence)} is not a whole number`) ??
    (isWhole(request.permits, 1) && request.permits <= SemaphoreRecord.maxLimit
      ? undefined
      : `permits ${show(request.permits)} is not a whole number from 1 to ${SemaphoreRecord.maxLimit}`)
