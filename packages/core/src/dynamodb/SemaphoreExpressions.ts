/**
 * The expressions of the semaphore writes. Placeholders are short (`#h` for `holders`): an acquire repeats them for
 * every holder it removes, and DynamoDB caps an expression at 4 KB. With `SemaphoreRecord.maxLimit` removals a
 * condition stays under 3 KB.
 *
 * @since 1.0.0
 */
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
const names = (owner: string) => ({ "#h": s.holders, "#f": s.fences, "#me": owner, "#ttl": s.ttl })

/** The caller's entry in `holders` as an acquire writes it: its version starts at 1, its lease now. */
const entry = (request: SemaphoreStore.AcquirePermitsRequest, now: number): AttributeValue => {
  const fields: Record<string, AttributeValue> = {
    [f.holder]: str(request.holder),
    [f.permits]: num(request.permits),
    [f.leaseUntil]: num(now + request.leaseMs),
    [f.leaseMs]: num(request.leaseMs),
    [f.version]: one,
    [f.acquiredAt]: num(now)
  }
  if (request.data !== undefined) fields[f.data] = str(request.data)
  return { M: fields }
}

/**
 * A new semaphore's item: the caller its only holder, the fence from the clock (now + 1, as a new lock's), if no item
 * has the key.
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
  return {
    UpdateExpression:
      "SET #h = :holders, #f = :fences, #fence = :fence, #used = :permits, #limit = :limit, #ttl = :ttl",
    ConditionExpression: "attribute_not_exists(#key)",
    ExpressionAttributeNames: {
      "#h": s.holders,
      "#f": s.fences,
      "#fence": s.fence,
      "#used": s.used,
      "#limit": s.limit,
      "#ttl": s.ttl,
      "#key": keyAttribute
    },
    ExpressionAttributeValues: {
      ":holders": { M: { [request.owner]: entry(request, now) } },
      ":fences": { M: { [request.owner]: fence } },
      ":fence": fence,
      ":permits": num(request.permits),
      ":limit": num(request.limit),
      ":ttl": num(ttl)
    }
  }
}

/**
 * An acquire on an existing item: the caller's entry and fence (the item's, plus one), the permits counted, and the
 * `expired` holders removed, if the limit is the caller's, the caller holds nothing yet, there is room once the
 * removed holders' permits are free, and each removed holder is there with its permits and over: past the cutoff
 * (absolute) or still at the version seen (observed).
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
  const ExpressionAttributeNames: Record<string, string> = {
    ...names(request.owner),
    "#fence": s.fence,
    "#used": s.used,
    "#limit": s.limit
  }
  const ExpressionAttributeValues: Record<string, AttributeValue> = {
    ":entry": entry(request, now),
    ":one": one,
    ":delta": num(request.permits - removedPermits),
    ":limit": num(request.limit),
    ":room": num(request.limit - request.permits + removedPermits),
    ":ttl": num(ttl)
  }
  let update = "SET #h.#me = :entry, #f.#me = #fence + :one, #fence = #fence + :one, #used = #used + :delta, " +
    "#ttl = :ttl"
  let condition = "#limit = :limit AND #used <= :room AND attribute_not_exists(#h.#me)"
  if (expired.length > 0) {
    ExpressionAttributeNames["#p"] = f.permits
    if (absolute) {
      ExpressionAttributeNames["#u"] = f.leaseUntil
      ExpressionAttributeValues[":c"] = num(now - request.takeover.maxClockSkewMs)
    } else {
      ExpressionAttributeNames["#v"] = f.version
    }
    update += " REMOVE " + expired.map((_, i) => `#h.#x${i}, #f.#x${i}`).join(", ")
    expired.forEach((holder, i) => {
      ExpressionAttributeNames[`#x${i}`] = holder.owner
      ExpressionAttributeValues[`:p${i}`] = num(holder.permits)
      condition += ` AND #h.#x${i}.#p = :p${i} AND #h.#x${i}.` + (absolute ? "#u < :c" : `#v = :v${i}`)
      if (!absolute) ExpressionAttributeValues[`:v${i}`] = num(holder.version)
    })
  }
  return {
    UpdateExpression: update,
    ConditionExpression: condition,
    ExpressionAttributeNames,
    ExpressionAttributeValues
  }
}

/**
 * A heartbeat: the holder's lease from now, its version changed, if it holds permits with this fence and, for a renew
 * with a write sequence, the holder's is below it (one delivered after a newer renew changes nothing).
 *
 * @since 1.0.0
 * @category requests
 */
export const renew = (request: SemaphoreStore.RenewPermitsRequest, now: number, ttl: number): Request => {
  const update = "SET #h.#me.#u = :leaseUntil, #h.#me.#ms = :leaseMs, #h.#me.#v = #h.#me.#v + :one, #ttl = :ttl"
  const ExpressionAttributeNames: Record<string, string> = {
    ...names(request.owner),
    "#u": f.leaseUntil,
    "#ms": f.leaseMs,
    "#v": f.version
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
      UpdateExpression: update,
      ConditionExpression: "#f.#me = :fence",
      ExpressionAttributeNames,
      ExpressionAttributeValues
    }
  }
  ExpressionAttributeNames["#s"] = f.sequence
  ExpressionAttributeValues[":s"] = num(request.sequence)
  return {
    UpdateExpression: `${update}, #h.#me.#s = :s`,
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
    UpdateExpression: "REMOVE #h.#me, #f.#me SET #used = #used - :permits, #ttl = :ttl",
    ConditionExpression: (request.fence === undefined ? "attribute_exists(#f.#me)" : "#f.#me = :fence") +
      " AND #h.#me.#p = :permits",
    ExpressionAttributeNames: { ...names(request.owner), "#used": s.used, "#p": f.permits },
    ExpressionAttributeValues: values
  }
}
