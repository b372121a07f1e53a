/**
 * Where a lock name lives in the table: the item key for a name, the name for an item, and the byte limits that
 * follow from DynamoDB's key size limits.
 *
 * Without a sort key, every family of locks (a `prefix`) shares the partition key, so the key must say unambiguously
 * which family a name belongs to, for any two prefixes:
 *
 * - with a prefix: `escape(prefix) + "#" + name` (`jobs#nightly` for prefix `jobs`, name `nightly`);
 * - without one: `escape(name)` (`nightly`; `a\#b` for the name `a#b`),
 *
 * where `escape` puts a backslash before each `\` and `#`. An escaped string has no unescaped `#`, so a key with one
 * belongs to a prefixed family and one without belongs to the family without a prefix, and reading a key from the
 * left finds the prefix's end at its first unescaped `#`: no two (prefix, name) pairs share a key, and names that
 * contain neither character stay readable as they are.
 *
 * @since 1.0.0
 */
import * as Checked from "../Checked.js"
import * as Utf8 from "../record/Utf8.js"
import { type ItemMap, stringAt } from "./AttributeValue.js"

/**
 * DynamoDB's limit on a partition key value, in UTF-8 bytes.
 *
 * @since 1.0.0
 * @category constants
 */
export const partitionKeyMaxBytes = 2048

/**
 * DynamoDB's limit on a sort key value, in UTF-8 bytes.
 *
 * @since 1.0.0
 * @category constants
 */
export const sortKeyMaxBytes = 1024

/**
 * Ends the (escaped) prefix in a partition key.
 *
 * @since 1.0.0
 * @category constants
 */
export const separator = "#"

/**
 * Makes the next `#` or `\` an ordinary character.
 *
 * @since 1.0.0
 * @category constants
 */
export const escapeCharacter = "\\"

const special = /[\\#]/
const specials = /[\\#]/g

/**
 * A value with a backslash before each `\` and `#`.
 *
 * @since 1.0.0
 * @category keys
 */
export const escape = (value: string): string =>
  special.test(value) ? value.replace(specials, (character) => escapeCharacter + character) : value

/**
 * A partition key read from the left: its family and name, or `undefined` for a key no layout writes (a dangling
 * or unknown escape, an empty prefix before `#`).
 *
 * @since 1.0.0
 * @category keys
 */
export const parse = (key: string): { readonly prefix: string; readonly name: string } | undefined => {
  let prefix = ""
  for (let i = 0; i < key.length; i++) {
    const character = key[i]!
    if (character === escapeCharacter) {
      const next = key[i + 1]
      if (next !== escapeCharacter && next !== separator) return undefined
      prefix += next
      i++
    } else if (character === separator) {
      return i === 0 ? undefined : { prefix, name: key.slice(i + 1) }
    } else {
      prefix += character
    }
  }
  return { prefix: "", name: prefix }
}

/**
 * The key layout of one store.
 *
 * - partition key only: `{ [partitionKey]: key }` as described above; names spread over partitions, listing is a
 *   Scan.
 * - with a sort key: `{ [partitionKey]: family, [sortKey]: name }`; one family is one partition, listing is a Query.
 *
 * The layout is the one judge of lock names: whether DynamoDB can key a name is a question about these keys.
 *
 * @since 1.0.0
 * @category models
 */
export interface KeyLayout {
  readonly partitionKey: string
  readonly sortKey: string | undefined
  /** Partition-key-only mode: the family in front of every name. Sort-key mode: the partition value of the family. */
  readonly prefix: string
  /**
   * The longest name the layout can key, in UTF-8 bytes. Without a prefix, `#` and `\` in a name are escaped and
   * take two bytes of it.
   */
  readonly maxNameBytes: number
  /**
   * The item key of a name, or, for a name that can not be a DynamoDB key (too long, empty, not well-formed UTF-16),
   * what is wrong with it: a sentence naming the byte length, the limit and the prefix.
   */
  readonly keyOf: (name: string) => Checked.Checked<ItemMap>
  /** What `keyOf` finds wrong with a name, without building its key: `undefined` for a name this layout can key. */
  readonly nameProblem: (name: string) => string | undefined
  /** The name an item stands for, or `undefined` if the item is not keyed as this layout keys names. */
  readonly nameOf: (item: ItemMap) => string | undefined
  /**
   * Partition-key-only mode: what the keys of names starting with `namePrefix` start with (every such key does, and
   * every key of this family that does stands for such a name).
   */
  readonly keyPrefixOf: (namePrefix: string) => string
  /** A readable rendering of an item's key, for error messages. */
  readonly describeKey: (item: ItemMap) => string
}

/**
 * A name as error messages quote it: the first 64 characters (whole code points), so a huge name stays readable.
 *
 * @since 1.0.0
 * @category messages
 */
export const quote = (name: string): string => {
  const points = Array.from(name)
  return JSON.stringify(points.length > 64 ? points.slice(0, 64).join("") + "…" : name)
}

const notWellFormed = (name: string) =>
  `lock name ${quote(name)} is not well-formed UTF-16 (it has a lone surrogate, half of a character such as an ` +
  `emoji): DynamoDB would store it as U+FFFD, the same item as other such names; use a well-formed name`

/** What every layout finds wrong with a name before it looks at lengths. */
const shapeProblem = (name: string): string | undefined => {
  if (typeof name !== "string") return `a lock name must be a string; got ${typeof name}`
  if (name.length === 0) return "a lock name must not be empty: DynamoDB rejects empty keys; use a non-empty name"
  return Utf8.isWellFormed(name) ? undefined : notWellFormed(name)
}

/** What tells the three layouts apart: where a name goes in the key, and which key attribute limits its length. */
interface Mode {
  readonly maxNameBytes: number
  /** The key attribute value a name's length counts against (the name itself, or its escaped form). */
  readonly measured: (name: string) => string
  /** The byte limit of `measured`. */
  readonly maxMeasuredBytes: number
  /** The message for a name whose measured value is `bytes` long, over the limit. */
  readonly tooLong: (name: string, bytes: number) => string
  readonly keyOf: (name: string, measured: string) => ItemMap
  readonly nameOf: (item: ItemMap) => string | undefined
  readonly keyPrefixOf: (namePrefix: string) => string
}

/**
 * What escaping adds to a name's key, for messages: the name's own size when its key is longer.
 *
 * @since 1.0.0
 * @category messages
 */
export const escapedNote = (name: string, keyBytes: number): string => {
  const bytes = Utf8.byteLength(name)
  return bytes === keyBytes ? "they are escaped" : `they are escaped; the name itself is ${bytes} UTF-8 bytes`
}

/** Partition-key-only mode without a prefix: the key is the escaped name. */
const unprefixedMode = (partitionKey: string): Mode => ({
  maxNameBytes: partitionKeyMaxBytes,
  measured: escape,
  maxMeasuredBytes: partitionKeyMaxBytes,
  tooLong: (name, bytes) =>
    `lock name ${quote(name)} takes ${bytes} UTF-8 bytes as a key, over this store's limit of ` +
    `${partitionKeyMaxBytes}: DynamoDB partition keys hold at most ${partitionKeyMaxBytes} bytes, this ` +
    `store has no prefix, and "#" and "\\" in a name take two bytes each (${escapedNote(name, bytes)}); use a ` +
    `shorter name`,
  keyOf: (_, key) => ({ [partitionKey]: { S: key } }),
  nameOf: (item) => {
    const key = stringAt(item, partitionKey)
    const parsed = key === undefined ? undefined : parse(key)
    return parsed !== undefined && parsed.prefix === "" && parsed.name !== "" ? parsed.name : undefined
  },
  keyPrefixOf: escape
})

/**
 * Partition-key-only mode: the room a prefix leaves for a name in the partition key (below 1 for a prefix too long to
 * key any name).
 *
 * @since 1.0.0
 * @category keys
 */
export const maxNameBytesAfter = (prefix: string): number =>
  partitionKeyMaxBytes - Utf8.byteLength(escape(prefix) + separator)

/** Partition-key-only mode with a prefix: the key is the escaped prefix, `#`, and the name. */
const prefixedMode = (partitionKey: string, prefix: string): Mode => {
  const familyKey = escape(prefix) + separator
  const maxNameBytes = maxNameBytesAfter(prefix)
  return {
    maxNameBytes,
    measured: (name) => name,
    maxMeasuredBytes: maxNameBytes,
    tooLong: (name, bytes) =>
      `lock name ${quote(name)} is ${bytes} UTF-8 bytes, over this store's limit of ` +
      `${maxNameBytes}: DynamoDB partition keys hold at most ${partitionKeyMaxBytes} bytes, and the prefix ` +
      `${quote(prefix)} takes ${partitionKeyMaxBytes - maxNameBytes} of them (as ${quote(familyKey)}); use ` +
      `a shorter name`,
    keyOf: (name) => ({ [partitionKey]: { S: familyKey + name } }),
    nameOf: (item) => {
      const key = stringAt(item, partitionKey)
      return key !== undefined && key.length > familyKey.length && key.startsWith(familyKey)
        ? key.slice(familyKey.length)
        : undefined
    },
    keyPrefixOf: (namePrefix) => familyKey + namePrefix
  }
}

/** Sort-key mode: the prefix is the partition key value, the name the sort key value. */
const sortKeyMode = (partitionKey: string, sortKey: string, prefix: string): Mode => ({
  maxNameBytes: sortKeyMaxBytes,
  measured: (name) => name,
  maxMeasuredBytes: sortKeyMaxBytes,
  tooLong: (name, bytes) =>
    `lock name ${quote(name)} is ${bytes} UTF-8 bytes, over this store's limit of ` +
    `${sortKeyMaxBytes}: names are DynamoDB sort keys, which hold at most ${sortKeyMaxBytes} bytes (the ` +
    `prefix ${quote(prefix)} is the partition key value and does not count); use a shorter name`,
  keyOf: (name) => ({ [partitionKey]: { S: prefix }, [sortKey]: { S: name } }),
  nameOf: (item) => {
    const name = stringAt(item, sortKey)
    return stringAt(item, partitionKey) === prefix && name !== undefined && name !== "" ? name : undefined
  },
  keyPrefixOf: (namePrefix) => namePrefix
})

/**
 * The layout of a store keyed by `partitionKey` (and `sortKey`, in sort-key mode), for the family `prefix`.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make = (options: {
  readonly partitionKey: string
  readonly sortKey: string | undefined
  readonly prefix: string
}): KeyLayout => {
  const { partitionKey, prefix, sortKey } = options
  const mode = sortKey !== undefined
    ? sortKeyMode(partitionKey, sortKey, prefix)
    : prefix === ""
    ? unprefixedMode(partitionKey)
    : prefixedMode(partitionKey, prefix)
  const problemOf = (name: string, measured: string): string | undefined =>
    Utf8.fits(measured, mode.maxMeasuredBytes) ? undefined : mode.tooLong(name, Utf8.byteLength(measured))
  return {
    partitionKey,
    sortKey,
    prefix,
    maxNameBytes: mode.maxNameBytes,
    keyOf: (name) => {
      const problem = shapeProblem(name)
      if (problem !== undefined) return Checked.invalid(problem)
      const measured = mode.measured(name)
      const tooLong = problemOf(name, measured)
      return tooLong === undefined ? Checked.ok(mode.keyOf(name, measured)) : Checked.invalid(tooLong)
    },
    nameProblem: (name) => shapeProblem(name) ?? problemOf(name, mode.measured(name)),
    nameOf: mode.nameOf,
    keyPrefixOf: mode.keyPrefixOf,
    describeKey: (item) =>
      sortKey === undefined
        ? JSON.stringify({ [partitionKey]: stringAt(item, partitionKey) ?? "?" })
        : JSON.stringify({
          [partitionKey]: stringAt(item, partitionKey) ?? "?",
          [sortKey]: stringAt(item, sortKey) ?? "?"
        })
  }
}
