/**
 * The attributes of a semaphore item and the defensive decoding of an item into a `SemaphoreRecord`.
 *
 * One item per semaphore: `limit`, `used` (the permits held), `fence` (the last one issued), `holders` (a map from
 * owner id to the holder's fields) and `fences` (a map from owner id to that acquisition's fence: a map of its own,
 * because one update expression can not set a new map entry and a path inside it), `ttl`, and the key.
 *
 * A waiter's reservation (`SemaphoreRecord.PermitReservation`) is kept in top-level attributes named as a lock's,
 * with `reservedPermits`, and `reservedRoom`: the limit less the reserved permits, written with the reservation
 * because a condition can compare numbers but not add them, and an acquire must ask whether its permits fit beside
 * the reserver's. `readWrite` marks the item of a read/write lock, for people; only the write that creates it sets it.
 *
 * Every write sets `ttl` as a lock's writes do: from its own lease's end (a release: from now), plus the retention.
 * Another holder's lease may end later than the writer's, so the item outlives every live lease only while the
 * retention (7 days by default) is longer than the longest lease; TTL then removes an item only once it has been idle
 * for the retention, and the fence restarts from the clock, as a lock's does.
 *
 * A holder under a lease session has no lease end of its own and may stay for longer than any retention, so its
 * acquire pins the item: `sessionPin` holds the TTL of a lease that never ends, and every write sets `ttl` to the pin
 * while there is one. A write whose answer shows a pin but no holder under a session removes the pin, conditioned on
 * the fence it saw: an acquire since then (the only way a holder joins) keeps the pin.
 *
 * @since 1.0.0
 */
import type { PermitHolder, PermitReservation, SemaphoreRecord } from "../record/SemaphoreRecord.js"
import * as LeaseSession from "../session/LeaseSession.js"
import { type AttributeValue, describeType, type ItemMap } from "./AttributeValue.js"
import type { KeyLayout } from "./Keys.js"
import * as Item from "./LockItem.js"
import { marker, type SemaphoreKeys } from "./SemaphoreKeys.js"

/**
 * The item's attribute names.
 *
 * @since 1.0.0
 * @category constants
 */
export const attributes = {
  limit: Item.semaphoreAttribute,
  used: "used",
  fence: "fence",
  holders: "holders",
  fences: "fences",
  ttl: "ttl",
  pin: "sessionPin",
  reservedBy: Item.attributes.reservedBy,
  reservedPermits: "reservedPermits",
  reservedRoom: "reservedRoom",
  reservedUntil: Item.attributes.reservedUntil,
  reservedSince: Item.attributes.reservedSince,
  reservedFrom: Item.attributes.reservedFrom,
  readWrite: "readWrite"
} as const

/**
 * The fields of one entry of `holders`.
 *
 * @since 1.0.0
 * @category constants
 */
export const entryFields = {
  holder: "holder",
  permits: "permits",
  leaseUntil: "leaseUntil",
  leaseMs: "leaseMs",
  version: "version",
  sequence: "sequence",
  acquiredAt: "acquiredAt",
  data: "data",
  session: "session"
} as const

/** Reads values, keeping the first problem found. */
const makeReader = () => {
  let failure: { readonly attribute: string; readonly problem: string } | undefined
  const fail = (attribute: string, problem: string) => {
    failure ??= { attribute, problem }
    return undefined
  }
  const number = (value: AttributeValue | undefined, attribute: string): number => {
    if (value === undefined) return fail(attribute, "is missing") ?? 0
    if (!("N" in value) || typeof value.N !== "string") {
      return fail(attribute, `should be a number (N), found ${describeType(value)}`) ?? 0
    }
    const n = Number(value.N)
    // Fences, counts and times are integers well below 2^53; anything else was not written by this store.
    return Number.isSafeInteger(n) ? n : fail(attribute, `should be a safe integer, found ${value.N}`) ?? 0
  }
  const string = (value: AttributeValue | undefined, attribute: string, required: boolean): string | undefined => {
    if (value === undefined) return required ? fail(attribute, "is missing") : undefined
    if ("S" in value && typeof value.S === "string") return value.S
    return fail(attribute, `should be a string (S), found ${describeType(value)}`)
  }
  const map = (value: AttributeValue | undefined, attribute: string): ItemMap => {
    if (value === undefined) return fail(attribute, "is missing") ?? {}
    if ("M" in value && typeof value.M === "object" && value.M !== null) return value.M
    return fail(attribute, `should be a map (M), found ${describeType(value)}`) ?? {}
  }
  const boolean = (value: AttributeValue | undefined, attribute: string): boolean | undefined => {
    if (value === undefined) return undefined
    if ("BOOL" in value && typeof value.BOOL === "boolean") return value.BOOL
    return fail(attribute, `should be a boolean (BOOL), found ${describeType(value)}`)
  }
  return { number, string, map, boolean, failure: () => failure, fail }
}

/**
 * The item's reservation, if it has one. Items written before reservations existed have none. `reservedRoom` is
 * checked against the limit: the acquire's condition reads it in place of the reserved permits.
 */
const reservation = (
  read: ReturnType<typeof makeReader>,
  item: ItemMap,
  limit: number
): PermitReservation | undefined => {
  const reservedBy = read.string(item[attributes.reservedBy], attributes.reservedBy, false)
  if (reservedBy === undefined) return undefined
  const reservedPermits = read.number(item[attributes.reservedPermits], attributes.reservedPermits)
  const room = read.number(item[attributes.reservedRoom], attributes.reservedRoom)
  if (room !== limit - reservedPermits) {
    read.fail(
      attributes.reservedRoom,
      `is ${room}, but the limit less the reserved permits is ${limit - reservedPermits}`
    )
  }
  return {
    reservedBy,
    reservedPermits,
    reservedUntil: read.number(item[attributes.reservedUntil], attributes.reservedUntil),
    reservedSince: read.number(item[attributes.reservedSince], attributes.reservedSince),
    reservedFrom: read.number(item[attributes.reservedFrom], attributes.reservedFrom)
  }
}

const entry = (
  read: ReturnType<typeof makeReader>,
  owner: string,
  value: AttributeValue,
  fence: AttributeValue | undefined
): PermitHolder => {
  const at = `${attributes.holders}.${owner}`
  const fields = read.map(value, at)
  const f = entryFields
  return {
    owner,
    holder: read.string(fields[f.holder], `${at}.${f.holder}`, true) ?? "",
    permits: read.number(fields[f.permits], `${at}.${f.permits}`),
    fence: read.number(fence, `${attributes.fences}.${owner}`),
    leaseUntil: read.number(fields[f.leaseUntil], `${at}.${f.leaseUntil}`),
    leaseMs: read.number(fields[f.leaseMs], `${at}.${f.leaseMs}`),
    version: read.number(fields[f.version], `${at}.${f.version}`),
    // A holder not renewed yet is at 0.
    sequence: fields[f.sequence] === undefined ? 0 : read.number(fields[f.sequence], `${at}.${f.sequence}`),
    acquiredAt: read.number(fields[f.acquiredAt], `${at}.${f.acquiredAt}`),
    data: read.string(fields[f.data], `${at}.${f.data}`, false),
    ...(fields[f.session] === undefined ? {} : { session: read.string(fields[f.session], `${at}.${f.session}`, true) })
  }
}

/**
 * Whether an item is pinned against TTL while no holder of `semaphore` (its decoding) is under a lease session: the
 * write that read it should remove the pin.
 *
 * @since 1.0.0
 * @category predicates
 */
export const hasStalePin = (item: ItemMap, semaphore: SemaphoreRecord): boolean =>
  item[attributes.pin] !== undefined &&
  !semaphore.holders.some((holder) => LeaseSession.sessionOf(holder) !== undefined)

/**
 * Decodes an item, or says which attribute of which key is malformed: a foreign, hand-edited or lock item must
 * become an error a person can act on, never a crash or a wrong count of permits.
 *
 * @since 1.0.0
 * @category decoding
 */
export const decode = (
  keys: SemaphoreKeys,
  layout: KeyLayout,
  item: ItemMap
): Item.Decoded<SemaphoreRecord> => {
  const malformed = (attribute: string, problem: string): Item.Malformed => ({
    _tag: "Malformed",
    key: layout.describeKey(item),
    attribute,
    problem
  })
  const name = keys.nameOf(item)
  if (name === undefined) {
    return malformed(
      layout.sortKey ?? layout.partitionKey,
      "is not a semaphore name of this store (wrong prefix or type)"
    )
  }
  if (!Item.isSemaphoreItem(item) && item[Item.attributes.leaseUntil] !== undefined) {
    return malformed(
      attributes.limit,
      `is missing: the item is the lock ${JSON.stringify(marker + name)}, whose key in sort-key mode is this ` +
        `semaphore's; use another name for one of them`
    )
  }
  const read = makeReader()
  const limit = read.number(item[attributes.limit], attributes.limit)
  const used = read.number(item[attributes.used], attributes.used)
  const fence = read.number(item[attributes.fence], attributes.fence)
  const fences = read.map(item[attributes.fences], attributes.fences)
  const holders = Object.entries(read.map(item[attributes.holders], attributes.holders))
    .map(([owner, value]) => entry(read, owner, value, fences[owner]))
    .sort((a, b) => a.fence - b.fence)
  const stray = Object.keys(fences).find((owner) => !holders.some((holder) => holder.owner === owner))
  if (stray !== undefined) read.fail(`${attributes.fences}.${stray}`, "names no holder")
  const held = holders.reduce((sum, holder) => sum + holder.permits, 0)
  if (held !== used) read.fail(attributes.used, `is ${used}, but the holders hold ${held} permits`)
  const reserved = reservation(read, item, limit)
  const readWrite = read.boolean(item[attributes.readWrite], attributes.readWrite)
  const failure = read.failure()
  if (failure !== undefined) return malformed(failure.attribute, failure.problem)
  // Absent fields stay absent, as in the memory store's records.
  const value: SemaphoreRecord = {
    name,
    limit,
    fence,
    used,
    holders,
    ...(reserved === undefined ? {} : { reservation: reserved }),
    ...(readWrite === undefined ? {} : { readWrite })
  }
  return { _tag: "Ok", value }
}
