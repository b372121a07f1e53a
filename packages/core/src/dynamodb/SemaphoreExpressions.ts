/**
 * The expressions of the semaphore writes. Placeholders are short (`#h` for `holders`): an acquire repeats them for
 * every holder it removes, and DynamoDB caps an expression at 4 KB. With `SemaphoreRecord.maxLimit` removals a
 * condition stays under 3 KB.
 *
 * @since 1.0.0
 */
import * as LeaseSession from "../session/LeaseSession.js"
import type * as SemaphoreStore from "../store/SemaphoreProtocol.js"
import { type AttributeValue, num, one, str } from "./AttributeValue.js"
import * as SemaphoreItem from "./SemaphoreItem.js"

const s = SemaphoreItem.attributes
const f = SemaphoreItem.entryFields

/**
 * The parts of one conditional `UpdateItem` of a semaphore.
 *
 * @since 1.0.0
 * @category models
 */
export interface Request {
  readonly UpdateExpression: string
  readonly ConditionExpression: string
  readonly ExpressionAttributeNames: Record<string, string>
  readonly ExpressionAttributeValues: Record<string, AttributeValue>
}

/** The placeholders every write names: the holder's entry is `#h.#me`, its fence `#f.#me`. */
const names = (owner: string) => ({ "#h": s.holders, "#f": s.fences, "#me": owner, "#ttl": s.ttl, "#pin": s.pin })

/** The placeholders of the reservation's attributes (`SemaphoreItem`). */
const reservationNames = {
  "#rb": s.reservedBy,
  "#rp": s.reservedPermits,
  "#rr": s.reservedRoom,
  "#ru": s.reservedUntil,
  "#rs": s.reservedSince,
  "#rf": s.reservedFrom
} as const

/**
 * No one else's reservation keeps the caller out (`SemaphoreRecord.isKeptOutAt`): there is none, it is the caller's,
 * it lapsed before `:now`, it has not begun to keep others out, or the caller's permits fit beside the reserver's.
 */
const notKeptOut = "(attribute_not_exists(#rb) OR #rb = :me OR #ru < :now OR #rf > :now OR #rr >= :permits)"

/** The placeholders `notKeptOut` names. */
const keptOutNames = {
  "#rb": s.reservedBy,
  "#ru": s.reservedUntil,
  "#rf": s.reservedFrom,
  "#rr": s.reservedRoom
} as const

/** What the reserver's acquire removes: it is in, and no longer waits. */
const clearReservation = "#rb, #rp, #rr, #ru, #rs, #rf"

/** How a write sets the item's TTL: to the pin while there is one (see `SemaphoreItem`), else to `:ttl`. */
const ttlSet = "#ttl = if_not_exists(#pin, :ttl)"

/** How an acquire under a lease session sets it: `:ttl` is the TTL of a lease that never ends, and pins it. */
const pinSet = "#ttl = :ttl, #pin = :ttl"

/**
 * The caller's entry in `holders` as an acquire writes it: its version starts at 1, its lease now, or under its session
 * with the session's fixed lease fields.
 */
const entry = (request: SemaphoreStore.AcquirePermitsRequest, now: number): AttributeValue => {
  const lease = request.session === undefined ? request.leaseMs : undefined
  const fields: Record<string, AttributeValue> = {
    [f.holder]: str(request.holder),
    [f.permits]: num(request.permits),
    [f.leaseUntil]: num(lease === undefined ? LeaseSession.heldUntil : now + lease),
    [f.leaseMs]: num(lease ?? LeaseSession.heldUntil),
    [f.version]: one,
    [f.acquiredAt]: num(now)
  }
  if (request.data !== undefined) fields[f.data] = str(request.data)
  if (request.session !== undefined) fields[f.session] = str(request.session)
  return { M: fields }
}

/**
 * The epoch ms an acquire's TTL counts from: its lease's end, or for permits under a lease session the end of a lease
 * that never ends.
 *
 * @since 1.0.0
 * @category requests
 */
export const leaseEnd = (request: SemaphoreStore.AcquirePermitsRequest, now: number): number =>
  request.session === undefined ? now + request.leaseMs : LeaseSession.heldUntil

/**
 * A new semaphore's item: the caller its only holder, the fence from the clock (now + 1, as a new lock's), marked a
 * read/write lock's if the request says so, if no item has the key.
 *
 * @since 1.0.0
 * @category requests
 */
export const create = (
  request: SemaphoreStore.AcquirePermitsRequest,
  now: number,
  ttl: number,
  keyAttribute: string
): Request => {
  const fence = num(now + 1)
  const readWrite = request.readWrite === true
  return {
    UpdateExpression: "SET #h = :holders, #f = :fences, #fence = :fence, #used = :permits, #limit = :limit, " +
      (request.session === undefined ? "#ttl = :ttl" : pinSet) + (readWrite ? ", #rw = :rw" : ""),
    ConditionExpression: "attribute_not_exists(#key)",
    ExpressionAttributeNames: {
      "#h": s.holders,
      "#f": s.fences,
      "#fence": s.fence,
      "#used": s.used,
      "#limit": s.limit,
      "#ttl": s.ttl,
      ...(request.session === undefined ? {} : { "#pin": s.pin }),
      ...(readWrite ? { "#rw": s.readWrite } : {}),
      "#key": keyAttribute
    },
    ExpressionAttributeValues: {
      ":holders": { M: { [request.owner]: entry(request, now) } },
      ":fences": { M: { [request.owner]: fence } },
      ":fence": fence,
      ":permits": num(request.permits),
      ":limit": num(request.limit),
      ":ttl": num(ttl),
      ...(readWrite ? { ":rw": { BOOL: true } } : {})
    }
  }
}

/**
 * An acquire on an existing item: the caller's entry and fence (the item's, plus one), the permits counted, and the
 * `expired` holders removed, if the limit is the caller's, the caller holds nothing yet, there is room once the
 * removed holders' permits are free, each removed holder is there with its permits and over: past the cutoff
 * (absolute), still at the version seen (observed), or still under the session the caller judged dead, and no one
 * else's reservation keeps the caller out at `now`. The reserver's acquire (`reserved`) asks instead that the
 * reservation still be its own, and removes it.
 *
 * @since 1.0.0
 * @category requests
 */
export const acquire = (
  request: SemaphoreStore.AcquirePermitsRequest,
  expired: ReadonlyArray<SemaphoreStore.ExpiredPermit>,
  now: number,
  ttl: number
): Request => {
  const removedPermits = expired.reduce((sum, holder) => sum + holder.permits, 0)
  const absolute = request.takeover._tag === "Absolute"
  const reserved = request.reserved === true
  const ExpressionAttributeNames: Record<string, string> = {
    ...names(request.owner),
    "#fence": s.fence,
    "#used": s.used,
    "#limit": s.limit,
    ...(reserved ? reservationNames : keptOutNames)
  }
  const ExpressionAttributeValues: Record<string, AttributeValue> = {
    ":entry": entry(request, now),
    ":one": one,
    ":delta": num(request.permits - removedPermits),
    ":limit": num(request.limit),
    ":room": num(request.limit - request.permits + removedPermits),
    ":ttl": num(ttl),
    ":me": str(request.owner),
    ...(reserved ? {} : { ":now": num(now), ":permits": num(request.permits) })
  }
  const update = "SET #h.#me = :entry, #f.#me = #fence + :one, #fence = #fence + :one, #used = #used + :delta, " +
    (request.session === undefined ? ttlSet : pinSet)
  // One REMOVE clause: DynamoDB takes each clause once per update.
  const removals = reserved ? [clearReservation] : []
  let condition = "#limit = :limit AND #used <= :room AND attribute_not_exists(#h.#me) AND " +
    (reserved ? "#rb = :me" : notKeptOut)
  if (expired.length > 0) {
    ExpressionAttributeNames["#p"] = f.permits
    const byLease = expired.some((holder) => holder.session === undefined)
    if (byLease && absolute) {
      ExpressionAttributeNames["#u"] = f.leaseUntil
      ExpressionAttributeValues[":c"] = num(now - request.takeover.maxClockSkewMs)
    } else if (byLease) {
      ExpressionAttributeNames["#v"] = f.version
    }
    if (expired.some((holder) => holder.session !== undefined)) ExpressionAttributeNames["#s"] = f.session
    removals.push(...expired.map((_, i) => `#h.#x${i}, #f.#x${i}`))
    expired.forEach((holder, i) => {
      ExpressionAttributeNames[`#x${i}`] = holder.owner
      ExpressionAttributeValues[`:p${i}`] = num(holder.permits)
      condition += ` AND #h.#x${i}.#p = :p${i} AND ` + removable(holder, i, absolute)
      if (holder.session !== undefined) ExpressionAttributeValues[`:s${i}`] = str(holder.session)
      else if (!absolute) ExpressionAttributeValues[`:v${i}`] = num(holder.version)
    })
  }
  return {
    UpdateExpression: removals.length === 0 ? update : `${update} REMOVE ${removals.join(", ")}`,
    ConditionExpression: condition,
    ExpressionAttributeNames,
    ExpressionAttributeValues
  }
}

/**
 * The condition that the `i`th holder to remove is still over (its permits are checked apart). An entry names a
 * session only while it is under it, since a renew removes the name: the name alone says so, in as few characters as a
 * lease's test, so that `SemaphoreRecord.maxLimit` removals stay within DynamoDB's 4 KB.
 */
const removable = (holder: SemaphoreStore.ExpiredPermit, i: number, absolute: boolean): string => {
  if (holder.session !== undefined) return `#h.#x${i}.#s = :s${i}`
  return absolute ? `#h.#x${i}.#u < :c` : `#h.#x${i}.#v = :v${i}`
}

/**
 * A heartbeat: the holder's lease from now, its version changed, out of any session, if it holds permits with this
 * fence and, for a renew with a write sequence, the holder's is below it (one delivered after a newer renew changes
 * nothing).
 *
 * @since 1.0.0
 * @category requests
 */
export const renew = (request: SemaphoreStore.RenewPermitsRequest, now: number, ttl: number): Request => {
  const set = `SET #h.#me.#u = :leaseUntil, #h.#me.#ms = :leaseMs, #h.#me.#v = #h.#me.#v + :one, ${ttlSet}`
  // A renew is of a lease of the holder's own: it takes the holder out of any session (see `removable`).
  const updateWith = (more: string) => `${set}${more} REMOVE #h.#me.#ss`
  const ExpressionAttributeNames: Record<string, string> = {
    ...names(request.owner),
    "#u": f.leaseUntil,
    "#ms": f.leaseMs,
    "#v": f.version,
    "#ss": f.session
  }
  const ExpressionAttributeValues: Record<string, AttributeValue> = {
    ":leaseUntil": num(now + request.leaseMs),
    ":leaseMs": num(request.leaseMs),
    ":one": one,
    ":fence": num(request.fence),
    ":ttl": num(ttl)
  }
  if (request.sequence === undefined) {
    return {
      UpdateExpression: updateWith(""),
      ConditionExpression: "#f.#me = :fence",
      ExpressionAttributeNames,
      ExpressionAttributeValues
    }
  }
  ExpressionAttributeNames["#s"] = f.sequence
  ExpressionAttributeValues[":s"] = num(request.sequence)
  return {
    UpdateExpression: updateWith(", #h.#me.#s = :s"),
    ConditionExpression: "#f.#me = :fence AND (attribute_not_exists(#h.#me.#s) OR #h.#me.#s < :s)",
    ExpressionAttributeNames,
    ExpressionAttributeValues
  }
}

/**
 * A release: the holder's entry and fence removed and its permits freed, if it holds exactly these permits (with
 * this fence, when given). The item and its fence stay.
 *
 * @since 1.0.0
 * @category requests
 */
export const release = (request: SemaphoreStore.ReleasePermitsRequest, ttl: number): Request => {
  const values: Record<string, AttributeValue> = { ":permits": num(request.permits), ":ttl": num(ttl) }
  if (request.fence !== undefined) values[":fence"] = num(request.fence)
  return {
    UpdateExpression: `REMOVE #h.#me, #f.#me SET #used = #used - :permits, ${ttlSet}`,
    ConditionExpression: (request.fence === undefined ? "attribute_exists(#f.#me)" : "#f.#me = :fence") +
      " AND #h.#me.#p = :permits",
    ExpressionAttributeNames: { ...names(request.owner), "#used": s.used, "#p": f.permits },
    ExpressionAttributeValues: values
  }
}

/**
 * Removes a pin no holder needs any more (see `SemaphoreItem.hasStalePin`) and sets the TTL from `ttl`, if no acquire
 * has changed the item since it showed `fence`.
 *
 * @since 1.0.0
 * @category requests
 */
export const unpin = (fence: number, ttl: number): Request => ({
  UpdateExpression: "REMOVE #pin SET #ttl = :ttl",
  ConditionExpression: "#fence = :fence AND attribute_exists(#pin)",
  ExpressionAttributeNames: { "#pin": s.pin, "#ttl": s.ttl, "#fence": s.fence },
  ExpressionAttributeValues: { ":fence": num(fence), ":ttl": num(ttl) }
})

/**
 * A reservation (`SemaphoreRecord.PermitReservation`): the caller named the next to take `permits`, until
 * `now + reserveMs`, keeping others out from `now + graceMs` (no later than it lapses), with the room it leaves in the
 * limit, if the item is a semaphore's with this limit, the caller holds none of it, and no one else's reservation is
 * live (none, the caller's, or one that lapsed before `now`) or the live one's reserver began to wait after the
 * caller. Holders, fence, versions and TTL stay as they are: observed takeover watches the versions.
 *
 * @since 1.0.0
 * @category requests
 */
export const reserve = (request: SemaphoreStore.ReservePermitsRequest, now: number): Request => ({
  UpdateExpression: "SET #rb = :me, #rp = :permits, #rr = :reservedRoom, #ru = :until, #rs = :since, #rf = :from",
  ConditionExpression: "#limit = :limit AND attribute_not_exists(#h.#me) AND " +
    "(attribute_not_exists(#rb) OR #rb = :me OR #ru < :now OR #rs > :since)",
  ExpressionAttributeNames: { "#h": s.holders, "#me": request.owner, "#limit": s.limit, ...reservationNames },
  ExpressionAttributeValues: {
    ":me": str(request.owner),
    ":permits": num(request.permits),
    ":reservedRoom": num(request.limit - request.permits),
    ":until": num(now + request.reserveMs),
    ":since": num(request.waitingSince),
    ":from": num(now + Math.min(request.graceMs, request.reserveMs)),
    ":limit": num(request.limit),
    ":now": num(now)
  }
})
