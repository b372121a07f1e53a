/**
 * The parts of every store request that do not depend on the request, built once: a lock operation is on the hot
 * path of every acquisition and heartbeat. The SDK only reads its input, so one object serves every request (frozen:
 * an SDK that wrote to it would fail loudly instead of changing other requests).
 *
 * @since 1.0.0
 */
import * as Item from "./LockItem.js"

/**
 * The placeholder of each attribute in the expressions: every attribute goes through one (owner, ttl, data and limit
 * are reserved words). One letter each, since every request carries them; the item's attribute names stay the same.
 */
const a = {
  owner: "#o",
  holder: "#h",
  leaseUntil: "#u",
  leaseMs: "#m",
  fence: "#f",
  version: "#v",
  sequence: "#s",
  acquiredAt: "#a",
  data: "#d",
  reservedBy: "#b",
  reservedUntil: "#r",
  reservedSince: "#w",
  reservedFrom: "#g",
  session: "#x",
  ttl: "#t",
  limit: "#l"
} as const satisfies Record<Item.Attribute | "limit", `#${string}`>

type Placeholder = typeof a[keyof typeof a]

const attributeOf = Object.fromEntries([
  ...Object.entries(Item.attributes).map(([attribute, name]) => [a[attribute as Item.Attribute], name]),
  [a.limit, Item.semaphoreAttribute]
]) as Readonly<Record<Placeholder, string>>

/** The `ExpressionAttributeNames` of the placeholders an expression uses (DynamoDB refuses one that none uses). */
const names = (...placeholders: ReadonlyArray<Placeholder>): Readonly<Record<string, string>> =>
  Object.freeze(Object.fromEntries(placeholders.map((placeholder) => [placeholder, attributeOf[placeholder]])))

/**
 * The placeholders of the values a lock's requests carry (`ExpressionAttributeValues`), one or two letters each for
 * the same reason.
 *
 * @since 1.0.0
 * @category expressions
 */
export const values = {
  owner: ":o",
  holder: ":h",
  leaseUntil: ":u",
  leaseMs: ":m",
  now: ":n",
  ttl: ":t",
  zero: ":z",
  one: ":i",
  data: ":d",
  fence: ":f",
  sequence: ":s",
  newOwner: ":no",
  cutoff: ":c",
  staleOwner: ":so",
  staleFence: ":sf",
  staleVersion: ":sv",
  reservedUntil: ":r",
  reservedFrom: ":g",
  waitingSince: ":w",
  session: ":x",
  orphanOwner: ":po",
  orphanFence: ":pf",
  heldUntil: ":hu"
} as const

const v = values

/**
 * DynamoDB TTL wants epoch seconds; rounding up keeps the row at least the full retention.
 *
 * @since 1.0.0
 * @category expressions
 */
export const ttlAt = (epochMs: number, retentionMs: number): number => Math.ceil((epochMs + retentionMs) / 1000)

/** Every write changes the version, whatever the clocks say: observed takeover watches it. */
const nextVersion = `${a.version} = if_not_exists(${a.version}, ${v.zero}) + ${v.one}`

const acquireSet = `SET ${a.owner} = ${v.owner}, ${a.holder} = ${v.holder}, ${a.leaseUntil} = ${v.leaseUntil}, ` +
  `${a.leaseMs} = ${v.leaseMs}, ${a.acquiredAt} = ${v.now}, ${a.ttl} = ${v.ttl}, ${nextVersion}, ` +
  // A new name, or a row deleted by TTL, restarts its fence from the writer's clock, as the memory store does: above
  // every earlier token as long as TTL retention is far longer than clock skew.
  `${a.fence} = if_not_exists(${a.fence}, ${v.now}) + ${v.one}`

/** What clears a reservation: the reserver's acquiring write (it is in), and an operator's release. */
const clearReservation = `${a.reservedBy}, ${a.reservedUntil}, ${a.reservedSince}, ${a.reservedFrom}`

/**
 * The update of an acquiring write, with or without `data`, clearing the reservation (the reserver's write) or
 * keeping it (anyone else's, taking the lock before the reservation keeps others out: the reserver is still next), and
 * naming the lease session it is held under or none.
 *
 * @since 1.0.0
 * @category expressions
 */
export const acquireUpdate = (withData: boolean, clearsReservation: boolean, underSession = false): string =>
  acquireUpdates[`${withData}/${clearsReservation}/${underSession}`]

const acquireUpdateOf = (withData: boolean, clearsReservation: boolean, underSession: boolean): string => {
  const set = [acquireSet, ...(withData ? [`${a.data} = ${v.data}`] : []), ...(underSession ? [sessionSet] : [])]
  const remove = [
    ...(withData ? [] : [a.data]),
    a.sequence,
    ...(clearsReservation ? [clearReservation] : []),
    ...(underSession ? [] : [a.session])
  ]
  return `${set.join(", ")} REMOVE ${remove.join(", ")}`
}

const sessionSet = `${a.session} = ${v.session}`

/** Every value of `make` over three yes-or-no choices, built once, by the key `"true/false/true"`. */
const byThreeFlags = <A>(
  make: (first: boolean, second: boolean, third: boolean) => A
): Readonly<Record<`${boolean}/${boolean}/${boolean}`, A>> => {
  const flags = [true, false]
  return Object.freeze(Object.fromEntries(
    flags.flatMap((first) =>
      flags.flatMap((second) => flags.map((third) => [`${first}/${second}/${third}`, make(first, second, third)]))
    )
  )) as Readonly<Record<`${boolean}/${boolean}/${boolean}`, A>>
}

const acquireUpdates = byThreeFlags(acquireUpdateOf)

const acquireAttributes = [
  a.sequence,
  a.owner,
  a.holder,
  a.leaseUntil,
  a.leaseMs,
  a.acquiredAt,
  a.ttl,
  a.fence,
  a.data,
  a.version,
  a.reservedBy,
  a.reservedUntil,
  a.reservedFrom,
  a.session,
  a.limit
] as const

/**
 * The names of an acquiring write: its conditions read the reservation; only the reserver's write also clears when
 * the reserver began to wait.
 *
 * @since 1.0.0
 * @category expressions
 */
export const acquireNames = (clearsReservation: boolean): Readonly<Record<string, string>> =>
  clearsReservation ? acquireNamesClearing : acquireNamesKeeping

const acquireNamesClearing = names(...acquireAttributes, a.reservedSince)
const acquireNamesKeeping = names(...acquireAttributes)

/**
 * No one else's live reservation: none, the caller's own, or one that lapsed before now on the caller's clock.
 * `values.owner` is the caller, `values.now` the request time.
 */
const notReservedForOther = `(attribute_not_exists(${a.reservedBy}) OR ${a.reservedBy} = ${v.owner} OR ` +
  `${a.reservedUntil} < ${v.now})`

/**
 * No one else's reservation keeps the caller out: none is live (`notReservedForOther`), or the live one has not begun
 * to (its start is after now on the caller's clock; a reservation written without a start keeps others out at once).
 */
const notKeptOut = `(${notReservedForOther} OR ${a.reservedFrom} > ${v.now})`

/**
 * Not a semaphore's item: in sort-key mode the lock `#x` has the key of the semaphore `x` (see `SemaphoreKeys`),
 * and a lock write must not turn that item into both.
 */
const notSemaphore = `attribute_not_exists(${a.limit})`

/**
 * @since 1.0.0
 * @category expressions
 */
export const freeOnlyExpression = `attribute_not_exists(${a.owner}) AND ${notKeptOut} AND ${notSemaphore}`

/**
 * @since 1.0.0
 * @category expressions
 */
export const freeOrExpiredExpression = `(attribute_not_exists(${a.owner}) OR ${a.leaseUntil} < ${v.cutoff}) AND ` +
  `${notKeptOut} AND ${notSemaphore}`

/**
 * @since 1.0.0
 * @category expressions
 */
export const freeOrStaleExpression = `(attribute_not_exists(${a.owner}) OR ` +
  `(${a.owner} = ${v.staleOwner} AND ${a.fence} = ${v.staleFence} AND ` +
  `(${a.version} = ${v.staleVersion} OR (attribute_not_exists(${a.version}) AND ${v.staleVersion} = ${v.zero})))) AND ` +
  `${notKeptOut} AND ${notSemaphore}`

/**
 * Free, or still held under a lease session by the holder the caller judged to be under a dead one (its owner and
 * fence, and the lease fields only a lock under a session has; see `LeaseSession.sessionOf`).
 *
 * @since 1.0.0
 * @category expressions
 */
export const freeOrOrphanExpression = `(attribute_not_exists(${a.owner}) OR ` +
  `(${a.owner} = ${v.orphanOwner} AND ${a.fence} = ${v.orphanFence} AND ${a.leaseUntil} = ${v.heldUntil} AND ` +
  `attribute_exists(${a.session}))) AND ${notKeptOut} AND ${notSemaphore}`

/**
 * A reservation changes neither the version nor the holder fields: observed takeover watches them.
 *
 * @since 1.0.0
 * @category expressions
 */
export const reserveUpdate = `SET ${a.reservedBy} = ${v.owner}, ${a.reservedUntil} = ${v.reservedUntil}, ` +
  `${a.reservedSince} = ${v.waitingSince}, ${a.reservedFrom} = ${v.reservedFrom}`

/**
 * A lock's row (every row has a fence: it stays when the lock is freed; a semaphore's has one too, and a `limit`), and
 * no one else's live reservation, or one whose reserver began to wait after the caller.
 *
 * @since 1.0.0
 * @category expressions
 */
export const reserveCondition = `attribute_exists(${a.fence}) AND ${notSemaphore} AND ` +
  `(${notReservedForOther} OR ${a.reservedSince} > ${v.waitingSince})`

/**
 * @since 1.0.0
 * @category expressions
 */
export const reserveNames = names(a.fence, a.reservedBy, a.reservedUntil, a.reservedSince, a.reservedFrom, a.limit)

const renewSet =
  `SET ${a.leaseUntil} = ${v.leaseUntil}, ${a.leaseMs} = ${v.leaseMs}, ${a.ttl} = ${v.ttl}, ${nextVersion}`

/**
 * @since 1.0.0
 * @category expressions
 */
export const renewUpdate = `${renewSet}, ${a.sequence} = ${v.sequence}`

/** A renew without a write sequence (from a caller that never gives up on one) leaves the record's as it is. */
const unorderedRenewUpdate = renewSet

/**
 * @since 1.0.0
 * @category expressions
 */
export const renewCondition = `${a.owner} = ${v.owner} AND ${a.fence} = ${v.fence}`

/**
 * A renew applies only above the lease's write sequence: one delivered after a newer one changes nothing.
 *
 * @since 1.0.0
 * @category expressions
 */
export const orderedRenewCondition =
  `${renewCondition} AND (attribute_not_exists(${a.sequence}) OR ${a.sequence} < ${v.sequence})`

const renewAttributes = [a.leaseUntil, a.leaseMs, a.ttl, a.owner, a.fence, a.version]

/**
 * The attribute names of a renew, by whether it sets or checks the write sequence, whether it sets `data`, and whether
 * it sets or removes the lease session: DynamoDB refuses a name that no expression uses.
 *
 * @since 1.0.0
 * @category expressions
 */
export const renewNames = (
  sequenced: boolean,
  withData: boolean,
  touchesSession: boolean
): Readonly<Record<string, string>> => renewNamesTable[`${sequenced}/${withData}/${touchesSession}`]

const renewNamesTable = byThreeFlags((sequenced, withData, touchesSession) =>
  names(
    ...renewAttributes,
    ...(sequenced ? [a.sequence] : []),
    ...(withData ? [a.data] : []),
    ...(touchesSession ? [a.session] : [])
  )
)

/**
 * A renew that also moves the lease to a new owner (`newOwner`: a hand-off's resume), keeping the fence: the new
 * owner's write sequence starts at this write's.
 */
const renewUpdateMovingOwner = `${renewUpdate}, ${a.owner} = ${v.newOwner}`

/**
 * What a renew does to the record's lease session: leaves it (a heartbeat), names the request's (a renew under a
 * session), or removes it (a resume onto a lease of its own).
 *
 * @since 1.0.0
 * @category models
 */
export type RenewSession = "keep" | "set" | "remove"

/**
 * The update expression of a renew: the heartbeat's as built once, or with the owner moved, with `data` set or
 * removed, and with the lease session set or removed in the same write (a data update, a resume and a renew under a
 * session, which are rare, build their strings).
 *
 * @since 1.0.0
 * @category expressions
 */
export const renewUpdateFor = (
  setData: { readonly data: string | undefined } | undefined,
  movesOwner: boolean,
  ordered: boolean,
  session: RenewSession = "keep"
): string => {
  const renew = movesOwner ? renewUpdateMovingOwner : ordered ? renewUpdate : unorderedRenewUpdate
  if (setData === undefined && session === "keep") return renew
  const set = [
    renew,
    ...(setData?.data !== undefined ? [`${a.data} = ${v.data}`] : []),
    ...(session === "set" ? [sessionSet] : [])
  ]
  const remove = [
    ...(setData !== undefined && setData.data === undefined ? [a.data] : []),
    ...(session === "remove" ? [a.session] : [])
  ]
  return remove.length === 0 ? set.join(", ") : `${set.join(", ")} REMOVE ${remove.join(", ")}`
}

/** What a release clears or sets, and with it a force release (which also drops the reservation). */
const clearAttributes = [
  a.leaseUntil,
  a.ttl,
  a.owner,
  a.holder,
  a.acquiredAt,
  a.data,
  a.version,
  a.sequence,
  a.session
]
const forceClearAttributes = [...clearAttributes, a.reservedBy, a.reservedUntil, a.reservedSince, a.reservedFrom]

/**
 * The row stays on release (its fence must keep increasing); TTL removes it once idle for the retention.
 *
 * @since 1.0.0
 * @category expressions
 */
export const clearUpdate = `SET ${a.leaseUntil} = ${v.zero}, ${a.ttl} = ${v.ttl}, ${nextVersion} ` +
  `REMOVE ${a.owner}, ${a.holder}, ${a.acquiredAt}, ${a.data}, ${a.sequence}, ${a.session}`

/**
 * @since 1.0.0
 * @category expressions
 */
export const clearNames = names(...clearAttributes)

/**
 * An operator's release also drops the reservation: nobody is left waiting behind a lock an operator freed.
 *
 * @since 1.0.0
 * @category expressions
 */
export const forceClearUpdate = `SET ${a.leaseUntil} = ${v.zero}, ${a.ttl} = ${v.ttl}, ${nextVersion} ` +
  `REMOVE ${a.owner}, ${a.holder}, ${a.acquiredAt}, ${a.data}, ${a.sequence}, ${a.session}, ${clearReservation}`

/**
 * @since 1.0.0
 * @category expressions
 */
export const forceClearNames = names(...forceClearAttributes)

/**
 * @since 1.0.0
 * @category expressions
 */
export const clearNamesWithFence = names(...clearAttributes, a.fence)

/**
 * @since 1.0.0
 * @category expressions
 */
export const releaseByOwner = `${a.owner} = ${v.owner}`

/**
 * @since 1.0.0
 * @category expressions
 */
export const releaseByOwnerAndFence = `${a.owner} = ${v.owner} AND ${a.fence} = ${v.fence}`

/**
 * @since 1.0.0
 * @category expressions
 */
export const forceReleaseCondition = `attribute_exists(${a.owner})`

/**
 * An operator's release of the holder it saw: no other, whenever it lands.
 *
 * @since 1.0.0
 * @category expressions
 */
export const forceReleaseOfHolderCondition = releaseByOwnerAndFence

/**
 * @since 1.0.0
 * @category expressions
 */
export const forceClearNamesWithFence = names(...forceClearAttributes, a.fence)
