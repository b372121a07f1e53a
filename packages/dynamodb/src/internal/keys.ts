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
 * @internal
 */
import type { AttributeValue } from "@aws-sdk/client-dynamodb"
import * as Utf8 from "@leasehold/lock/Utf8"
import * as Either from "effect/Either"

/** DynamoDB's limit on a partition key value, in UTF-8 bytes. */
export const partitionKeyMaxBytes = 2048

/** DynamoDB's limit on a sort key value, in UTF-8 bytes. */
export const sortKeyMaxBytes = 1024

/** Ends the (escaped) prefix in a partition key. */
export const separator = "#"

/** Makes the next `#` or `\` an ordinary character. */
export const escapeCharacter = "\\"

const special = /[\\#]/
const specials = /[\\#]/g

/** @internal */
export const escape = (value: string): string =>
  special.test(value) ? value.replace(specials, (character) => escapeCharacter + character) : value

/**
 * A partition key read from the left: its family and name, or `undefined` for a key no layout writes (a dangling
 * or unknown escape, an empty prefix before `#`).
 *
 * @internal
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
 * @internal
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
  readonly keyOf: (name: string) => Either.Either<Record<string, AttributeValue>, string>
  /** The name an item stands for, or `undefined` if the item is not keyed as this layout keys names. */
  readonly nameOf: (item: Record<string, AttributeValue>) => string | undefined
  /**
   * Partition-key-only mode: what the keys of names starting with `namePrefix` start with (every such key does, and
   * every key of this family that does stands for such a name).
   */
  readonly keyPrefixOf: (namePrefix: string) => string
  /** A readable rendering of an item's key, for error messages. */
  readonly describeKey: (item: Record<string, AttributeValue>) => string
}

/** A name as error messages quote it: the first 64 characters (whole code points), so a huge name stays readable. */
const quote = (name: string): string => {
  const points = Array.from(name)
  return JSON.stringify(points.length > 64 ? points.slice(0, 64).join("") + "…" : name)
}

const notWellFormed = (name: string) =>
  `lock name ${quote(name)} is not well-formed UTF-16 (it has a lone surrogate, half of a character such as an ` +
  `emoji): DynamoDB would store it as U+FFFD, the same item as other such names; use a well-formed name`

const stringAt = (item: Record<string, AttributeValue>, attribute: string): string | undefined => {
  const value = item[attribute]
  return value !== undefined && "S" in value && typeof value.S === "string" ? value.S : undefined
}

/** @internal */
export const make = (options: {
  readonly partitionKey: string
  readonly sortKey: string | undefined
  readonly prefix: string
}): KeyLayout => {
  const { partitionKey, prefix, sortKey } = options
  const describeKey = (item: Record<string, AttributeValue>): string =>
    sortKey === undefined
      ? JSON.stringify({ [partitionKey]: stringAt(item, partitionKey) ?? "?" })
      : JSON.stringify({
        [partitionKey]: stringAt(item, partitionKey) ?? "?",
        [sortKey]: stringAt(item, sortKey) ?? "?"
      })
  // Checks every layout makes before it looks at lengths.
  const invalid = (name: string): string | undefined => {
    if (typeof name !== "string") return `a lock name must be a string; got ${typeof name}`
    if (name.length === 0) return "a lock name must not be empty: DynamoDB rejects empty keys; use a non-empty name"
    return Utf8.isWellFormed(name) ? undefined : notWellFormed(name)
  }

  if (sortKey === undefined) {
    if (prefix === "") {
      return {
        partitionKey,
        sortKey,
        prefix,
        maxNameBytes: partitionKeyMaxBytes,
        keyOf: (name) => {
          const problem = invalid(name)
          if (problem !== undefined) return Either.left(problem)
          const key = escape(name)
          if (!Utf8.fits(key, partitionKeyMaxBytes)) {
            const bytes = Utf8.byteLength(key)
            return Either.left(
              `lock name ${quote(name)} takes ${bytes} UTF-8 bytes as a key, over this store's limit of ` +
                `${partitionKeyMaxBytes}: DynamoDB partition keys hold at most ${partitionKeyMaxBytes} bytes, this ` +
                `store has no prefix, and "#" and "\\" in a name take two bytes each (they are escaped); use a ` +
                `shorter name`
            )
          }
          return Either.right({ [partitionKey]: { S: key } })
        },
        nameOf: (item) => {
          const key = stringAt(item, partitionKey)
          const parsed = key === undefined ? undefined : parse(key)
          return parsed !== undefined && parsed.prefix === "" && parsed.name !== "" ? parsed.name : undefined
        },
        keyPrefixOf: escape,
        describeKey
      }
    }
    const familyKey = escape(prefix) + separator
    const maxNameBytes = partitionKeyMaxBytes - Utf8.byteLength(familyKey)
    return {
      partitionKey,
      sortKey,
      prefix,
      maxNameBytes,
      keyOf: (name) => {
        const problem = invalid(name)
        if (problem !== undefined) return Either.left(problem)
        if (!Utf8.fits(name, maxNameBytes)) {
          return Either.left(
            `lock name ${quote(name)} is ${Utf8.byteLength(name)} UTF-8 bytes, over this store's limit of ` +
              `${maxNameBytes}: DynamoDB partition keys hold at most ${partitionKeyMaxBytes} bytes, and the prefix ` +
              `${quote(prefix)} takes ${partitionKeyMaxBytes - maxNameBytes} of them (as ${quote(familyKey)}); use ` +
              `a shorter name`
          )
        }
        return Either.right({ [partitionKey]: { S: familyKey + name } })
      },
      nameOf: (item) => {
        const key = stringAt(item, partitionKey)
        return key !== undefined && key.length > familyKey.length && key.startsWith(familyKey)
          ? key.slice(familyKey.length)
          : undefined
      },
      keyPrefixOf: (namePrefix) => familyKey + namePrefix,
      describeKey
    }
  }
  return {
    partitionKey,
    sortKey,
    prefix,
    maxNameBytes: sortKeyMaxBytes,
    keyOf: (name) => {
      const problem = invalid(name)
      if (problem !== undefined) return Either.left(problem)
      if (!Utf8.fits(name, sortKeyMaxBytes)) {
        return Either.left(
          `lock name ${quote(name)} is ${Utf8.byteLength(name)} UTF-8 bytes, over this store's limit of ` +
            `${sortKeyMaxBytes}: names are DynamoDB sort keys, which hold at most ${sortKeyMaxBytes} bytes (the ` +
            `prefix ${quote(prefix)} is the partition key value and does not count); use a shorter name`
        )
      }
      return Either.right({ [partitionKey]: { S: prefix }, [sortKey]: { S: name } })
    },
    nameOf: (item) => {
      const name = stringAt(item, sortKey)
      return stringAt(item, partitionKey) === prefix && name !== undefined && name !== "" ? name : undefined
    },
    keyPrefixOf: (namePrefix) => namePrefix,
    describeKey
  }
}
