/**
 * The attributes of a lock item and the defensive decoding of an item into a `LockRecord`.
 *
 * @internal
 */
import type { AttributeValue } from "@aws-sdk/client-dynamodb"
import type { LockRecord } from "@leasehold/lock/LockRecord"
import * as Either from "effect/Either"
import type { KeyLayout } from "./keys.js"

/**
 * The item's attribute names. Every expression refers to them through `ExpressionAttributeNames` placeholders of
 * the same name (`#owner`), because several (owner, ttl, data) are or may become DynamoDB reserved words.
 *
 * @internal
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
  ttl: "ttl"
} as const

/** @internal */
export type Attribute = keyof typeof attributes

/** @internal */
export const attributeNames: ReadonlyArray<string> = Object.values(attributes)

/**
 * The attribute only a semaphore's item has (see `semaphoreItem.ts`): its `limit`. A lock store skips such items in
 * a listing, refuses them otherwise, and writes only to items without it.
 *
 * @internal
 */
export const semaphoreAttribute = "limit"

/** @internal */
export const isSemaphoreItem = (item: Item): boolean => item[semaphoreAttribute] !== undefined

/** What is wrong with an item, for the caller to turn into an error that names the table. */
export interface Malformed {
  readonly key: string
  readonly attribute: string
  readonly problem: string
}

type Item = Record<string, AttributeValue>

const describe = (value: AttributeValue): string => {
  const [type] = Object.keys(value)
  return type === undefined ? "an empty value" : `a value of type ${type}`
}

/**
 * Decodes an item, or says which attribute of which key is malformed. A foreign or hand-edited item must become an
 * error a person can act on, never a crash or a silently wrong fence.
 *
 * @internal
 */
export const decode = (layout: KeyLayout, item: Item): Either.Either<LockRecord, Malformed> => {
  const name = layout.nameOf(item)
  if (name === undefined) {
    return Either.left({
      key: layout.describeKey(item),
      attribute: layout.sortKey ?? layout.partitionKey,
      problem: "is not a lock name of this store (wrong prefix or type)"
    })
  }
  if (isSemaphoreItem(item)) {
    return Either.left({
      key: layout.describeKey(item),
      attribute: semaphoreAttribute,
      problem: name.startsWith("#")
        ? `belongs to a semaphore: in sort-key mode the semaphore ${JSON.stringify(name.slice(1))} has the key of ` +
          `the lock ${JSON.stringify(name)}; use another name for one of them`
        : "belongs to a semaphore, not a lock"
    })
  }

  // The first problem found, keyed when reported: describing the key costs more than decoding a well-formed item.
  let failure: Omit<Malformed, "key"> | undefined
  const string = (attribute: string, required: boolean): string | undefined => {
    const value = item[attribute]
    if (value === undefined || "NULL" in value && value.NULL === true) {
      if (required) failure ??= { attribute, problem: "is missing" }
      return undefined
    }
    if ("S" in value && typeof value.S === "string") return value.S
    failure ??= { attribute, problem: `should be a string (S), found ${describe(value)}` }
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
    failure ??= { attribute, problem: `should be a number (N), found ${describe(value)}` }
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
    reservedSince: number(attributes.reservedSince, false) ?? 0
  }
  return failure === undefined ? Either.right(record) : Either.left({ key: layout.describeKey(item), ...failure })
}
