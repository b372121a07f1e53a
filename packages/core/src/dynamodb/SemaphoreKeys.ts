/**
 * Where a semaphore lives in the table: its lock key (see `Keys`) with a `#` in front of the value that carries
 * the name. In partition-key-only mode that is the partition key (`#` + the lock's key), in sort-key mode the sort key
 * (the family's partition, sort key `#` + name).
 *
 * In partition-key-only mode no lock key begins with an unescaped `#` (an escaped prefix or name never does, and an
 * empty prefix is refused), so semaphores and locks never share a key, whatever their names: the lock store's `list`
 * skips these keys as it skips other families', and `inspect` never reads them. In sort-key mode a lock's sort key is
 * its name as given, so a lock named `#x` has the key of the semaphore `x`. Neither overwrites the other there: a
 * lock write requires an item without a `limit`, a semaphore write an item with one (or none), and each reads the
 * other's item as a malformed one, with an error that says so.
 *
 * @since 1.0.0
 */
import * as Checked from "../Checked.js"
import * as Utf8 from "../record/Utf8.js"
import { type ItemMap, stringAt } from "./AttributeValue.js"
import * as Keys from "./Keys.js"

/**
 * What sets a semaphore's key apart from a lock's.
 *
 * @since 1.0.0
 * @category constants
 */
export const marker = "#"

/**
 * The keys of a store's semaphores.
 *
 * @since 1.0.0
 * @category models
 */
export interface SemaphoreKeys {
  /** The longest semaphore name, in UTF-8 bytes: the lock budget less the marker. */
  readonly maxNameBytes: number
  /** The item key of a semaphore name, or what is wrong with the name, as `KeyLayout.keyOf` says for a lock. */
  readonly keyOf: (name: string) => Checked.Checked<ItemMap>
  /** What `keyOf` finds wrong with a name, without building its key: `undefined` for a name this store can key. */
  readonly nameProblem: (name: string) => string | undefined
  /** The semaphore name an item stands for, or `undefined` if it is not keyed as this store keys semaphores. */
  readonly nameOf: (item: ItemMap) => string | undefined
}

const shapeProblem = (name: string): string | undefined => {
  if (typeof name !== "string") return `a semaphore name must be a string; got ${typeof name}`
  if (name.length === 0) return "a semaphore name must not be empty: DynamoDB rejects empty keys; use a non-empty name"
  return Utf8.isWellFormed(name)
    ? undefined
    : `semaphore name ${Keys.quote(name)} is not well-formed UTF-16 (it has a lone surrogate): DynamoDB would store ` +
      `it as U+FFFD, the same item as other such names; use a well-formed name`
}

/**
 * The semaphore keys of a lock layout.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make = (layout: Keys.KeyLayout): SemaphoreKeys => {
  const { partitionKey, prefix, sortKey } = layout
  const maxNameBytes = layout.maxNameBytes - Utf8.byteLength(marker)
  const keyAttribute = sortKey ?? partitionKey
  const maxKeyBytes = sortKey === undefined ? Keys.partitionKeyMaxBytes : Keys.sortKeyMaxBytes
  // The value a lock of this name would carry its name in; the family's part of a partition key is fixed.
  const familyKey = prefix === "" ? "" : Keys.escape(prefix) + Keys.separator
  const carrier = (name: string): string =>
    sortKey !== undefined ? name : prefix === "" ? Keys.escape(name) : familyKey + name

  const escapes = sortKey === undefined && prefix === ""
  const tooLong = (name: string, bytes: number) =>
    `semaphore name ${Keys.quote(name)} takes ${bytes} UTF-8 bytes as a key, over DynamoDB's limit of ` +
    `${maxKeyBytes} for a ${sortKey === undefined ? "partition" : "sort"} key: a semaphore's key is a lock's with ` +
    `"${marker}" in front${
      escapes
        ? ` ("#" and "\\" in a name take two bytes each: ${Keys.escapedNote(name, bytes - Utf8.byteLength(marker))})`
        : ""
    }` +
    `, so this store takes semaphore names of up to ${maxNameBytes} bytes${escapes ? " as a key" : ""}; use a ` +
    `shorter name`

  /** The key value that carries the name, or what is wrong with the name. */
  const valueOf = (name: string): Checked.Checked<string> => {
    const shape = shapeProblem(name)
    if (shape !== undefined) return Checked.invalid(shape)
    const value = marker + carrier(name)
    return Utf8.fits(value, maxKeyBytes) ? Checked.ok(value) : Checked.invalid(tooLong(name, Utf8.byteLength(value)))
  }

  const keyOf = (name: string): Checked.Checked<ItemMap> => {
    const value = valueOf(name)
    if (!Checked.isOk(value)) return value
    return Checked.ok(
      sortKey === undefined
        ? { [partitionKey]: { S: value.value } }
        : { [partitionKey]: { S: prefix }, [sortKey]: { S: value.value } }
    )
  }

  const nameProblem = (name: string): string | undefined => {
    const value = valueOf(name)
    return Checked.isOk(value) ? undefined : value.message
  }

  const nameOf = (item: ItemMap): string | undefined => {
    if (sortKey !== undefined && stringAt(item, partitionKey) !== prefix) return undefined
    const value = stringAt(item, keyAttribute)
    if (value === undefined || !value.startsWith(marker)) return undefined
    const carried = value.slice(marker.length)
    if (sortKey !== undefined) return carried === "" ? undefined : carried
    if (prefix !== "") {
      return carried.length > familyKey.length && carried.startsWith(familyKey)
        ? carried.slice(familyKey.length)
        : undefined
    }
    const parsed = Keys.parse(carried)
    return parsed !== undefined && parsed.prefix === "" && parsed.name !== "" ? parsed.name : undefined
  }

  return { maxNameBytes, keyOf, nameProblem, nameOf }
}
