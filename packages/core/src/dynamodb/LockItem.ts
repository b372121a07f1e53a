/**
 * The attributes of a lock item and the defensive decoding of an item into a `LockRecord`.
 *
 * @since 1.0.0
 */
import type * as Checked from "../Checked.js"
import type { LockRecord } from "../record/LockRecord.js"
import { describeType, type ItemMap } from "./AttributeValue.js"
import type { KeyLayout } from "./Keys.js"

/**
 * The item's attribute names. Every expression refers to them through `ExpressionAttributeNames` placeholders
 * (`LockExpressions`), because several (owner, ttl, data) are or may become DynamoDB reserved words.
 *
 * @since 1.0.0
 * @category constants
 */
export const attributes = {
  owner: "owner",
  holder: "holder",
  leaseUntil: "leaseUntil",
  leaseMs: "leaseMs",
  fence: "fence",
  version: "version",
  sequence: "sequence",
  acquiredAt: "acquiredAt",
  data: "data",
  reservedBy: "reservedBy",
  reservedUntil: "reservedUntil",
  reservedSince: "reservedSince",
  reservedFrom: "reservedFrom",
  session: "leaseSession",
  ttl: "ttl"
} as const

/**
 * @since 1.0.0
 * @category models
 */
export type Attribute = keyof typeof attributes

/**
 * @since 1.0.0
 * @category constants
 */
export const attributeNames: ReadonlyArray<string> = Object.values(attributes)

/**
 * The attribute only a semaphore's item has (see `SemaphoreItem`): its `limit`. A lock store skips such items in
 * a listing, refuses them otherwise, and writes only to items without it.
 *
 * @since 1.0.0
 * @category constants
 */
export const semaphoreAttribute = "limit"

/**
 * @since 1.0.0
 * @category predicates
 */
export const isSemaphoreItem = (item: ItemMap): boolean => item[semaphoreAttribute] !== undefined

/**
 * What is wrong with an item, for the caller to turn into an error that names the table.
 *
 * @since 1.0.0
 * @category models
 */
export interface Malformed {
  readonly _tag: "Malformed"
  readonly key: string
  readonly attribute: string
  readonly problem: string
}

/**
 * An item's record, or what is malformed in it.
 *
 * @since 1.0.0
 * @category models
 */
export type Decoded<A> = Checked.Ok<A> | Malformed

/** What `decode` found: its record, or the first problem found, keyed as `malformed` reports it. */
const malformed = (key: string, attribute: string, problem: string): Malformed => ({
  _tag: "Malformed",
  key,
  attribute,
  problem
})

/**
 * The message of an error for an item of `tableName` that Leasehold did not write (a `kind` of item: lock or
 * semaphore): `problem` says what is wrong with it.
 *
 * @since 1.0.0
 * @category messages
 */
export const malformedMessage = (tableName: string, kind: string, key: string, problem: string): string =>
  `table "${tableName}" holds a malformed ${kind} item ${key}: ${problem}; it was not written by ` +
  `Leasehold or was edited by hand: fix or delete that item`

/**
 * What a decoding problem says after the key: `attribute "fence" is missing`.
 *
 * @since 1.0.0
 * @category messages
 */
export const describeMalformed = (malformed: Malformed): string =>
  `attribute "${malformed.attribute}" ${malformed.problem}`

/**
 * Decodes an item, or says which attribute of which key is malformed. A foreign or hand-edited item must become an
 * error a person can act on, never a crash or a silently wrong fence.
 *
 * @since 1.0.0
 * @category decoding
 */
export const decode = (layout: KeyLayout, item: ItemMap): Decoded<LockRecord> => {
  const name = layout.nameOf(item)
  if (name === undefined) {
    return malformed(
      layout.describeKey(item),
      layout.sortKey ?? layout.partitionKey,
      "is not a lock name of this store (wrong prefix or type)"
    )
  }
  if (isSemaphoreItem(item)) {
    return malformed(
      layout.describeKey(item),
      semaphoreAttribute,
      name.startsWith("#")
        ? `belongs to a semaphore: in sort-key mode the semaphore ${JSON.stringify(name.slice(1))} has the key of ` +
          `the lock ${JSON.stringify(name)}; use another name for one of them`
        : "belongs to a semaphore, not a lock"
    )
  }

  // The first problem found, keyed when reported: describing the key costs more than decoding a well-formed item.
  let failure: { readonly attribute: string; readonly problem: string } | undefined
  const string = (attribute: string, required: boolean): string | undefined => {
    const value = item[attribute]
    if (value === undefined || "NULL" in value && value.NULL === true) {
      if (required) failure ??= { attribute, problem: "is missing" }
      return undefined
    }
    if ("S" in value && typeof value.S === "string") return value.S
    failure ??= { attribute, problem: `should be a string (S), found ${describeType(value)}` }
    return undefined
  }
  const number = (attribute: string, required: boolean): number | undefined => {
    const value = item[attribute]
    if (value === undefined || "NULL" in value && value.NULL === true) {
      if (required) failure ??= { attribute, problem: "is missing" }
      return undefined
    }
    if ("N" in value && typeof value.N === "string") {
      const n = Number(value.N)
      // Fences and times are integers well below 2^53; anything else was not written by this store.
      if (Number.isSafeInteger(n)) return n
      failure ??= { attribute, problem: `should be a safe integer, found ${value.N}` }
      return undefined
    }
    failure ??= { attribute, problem: `should be a number (N), found ${describeType(value)}` }
    return undefined
  }

  const owner = string(attributes.owner, false)
  const held = owner !== undefined
  const record: LockRecord = {
    name,
    owner,
    holder: string(attributes.holder, held),
    leaseUntil: number(attributes.leaseUntil, true) ?? 0,
    leaseMs: number(attributes.leaseMs, true) ?? 0,
    fence: number(attributes.fence, true) ?? 0,
    // Rows written before records had versions read as version 0 until their next write.
    version: number(attributes.version, false) ?? 0,
    // A lease not renewed yet, or renewed only by a store without write sequences, is at 0.
    sequence: number(attributes.sequence, false) ?? 0,
    acquiredAt: number(attributes.acquiredAt, held),
    data: string(attributes.data, false),
    // Rows written before reservations existed read as unreserved.
    reservedBy: string(attributes.reservedBy, false),
    reservedUntil: number(attributes.reservedUntil, false) ?? 0,
    reservedSince: number(attributes.reservedSince, false) ?? 0,
    // A reservation written before reservations had a start keeps others out at once, as its writer meant.
    reservedFrom: number(attributes.reservedFrom, false) ?? 0,
    // Rows written before sessions existed are held on leases of their own.
    session: string(attributes.session, false)
  }
  return failure === undefined
    ? { _tag: "Ok", value: record }
    : malformed(layout.describeKey(item), failure.attribute, failure.problem)
}
