/**
 * Where a lock name lives in the table: the item key for a name, the name for an item, and the byte limits that
 * follow from DynamoDB's key size limits.
 *
 * @internal
 */
import type { AttributeValue } from "@aws-sdk/client-dynamodb"
import * as Either from "effect/Either"

/** DynamoDB's limit on a partition key value, in UTF-8 bytes. */
export const partitionKeyMaxBytes = 2048

/** DynamoDB's limit on a sort key value, in UTF-8 bytes. */
export const sortKeyMaxBytes = 1024

/** @internal */
export const utf8Bytes = (value: string): number => Buffer.byteLength(value, "utf8")

/**
 * The key layout of one store.
 *
 * - partition key only: `{ [partitionKey]: prefix + name }`; names spread over partitions, listing is a Scan.
 * - with a sort key: `{ [partitionKey]: family, [sortKey]: name }`; one family is one partition, listing is a Query.
 *
 * @internal
 */
export interface KeyLayout {
  readonly partitionKey: string
  readonly sortKey: string | undefined
  /** Partition-key-only mode: prepended to every name. Sort-key mode: the partition value of the family. */
  readonly prefix: string
  /** The longest name the layout can key, in UTF-8 bytes. */
  readonly maxNameBytes: number
  /**
   * The item key of a name, or, for a name that can not be a DynamoDB key (too long or empty), what is wrong with it:
   * a sentence naming the byte length, the limit and the prefix.
   */
  readonly keyOf: (name: string) => Either.Either<Record<string, AttributeValue>, string>
  /** The name an item stands for, or `undefined` if the item is not keyed as this layout keys names. */
  readonly nameOf: (item: Record<string, AttributeValue>) => string | undefined
  /** A readable rendering of an item's key, for error messages. */
  readonly describeKey: (item: Record<string, AttributeValue>) => string
}

/** A name as error messages quote it: the first 64 characters (whole code points), so a huge name stays readable. */
const quote = (name: string): string => {
  const points = Array.from(name)
  return JSON.stringify(points.length > 64 ? points.slice(0, 64).join("") + "…" : name)
}

/** @internal */
export const make = (options: {
  readonly partitionKey: string
  readonly sortKey: string | undefined
  readonly prefix: string
}): KeyLayout => {
  const { partitionKey, prefix, sortKey } = options
  const stringAt = (item: Record<string, AttributeValue>, attribute: string): string | undefined => {
    const value = item[attribute]
    return value !== undefined && "S" in value && typeof value.S === "string" ? value.S : undefined
  }
  const describeKey = (item: Record<string, AttributeValue>): string =>
    sortKey === undefined
      ? JSON.stringify({ [partitionKey]: stringAt(item, partitionKey) ?? "?" })
      : JSON.stringify({
        [partitionKey]: stringAt(item, partitionKey) ?? "?",
        [sortKey]: stringAt(item, sortKey) ?? "?"
      })

  if (sortKey === undefined) {
    const prefixBytes = utf8Bytes(prefix)
    const maxNameBytes = partitionKeyMaxBytes - prefixBytes
    return {
      partitionKey,
      sortKey,
      prefix,
      maxNameBytes,
      keyOf: (name) => {
        const bytes = utf8Bytes(name)
        // DynamoDB rejects empty key strings, so an empty name needs a prefix in front of it.
        if (bytes + prefixBytes === 0) {
          return Either.left(
            "a lock name must not be empty in a store without a prefix: it would be an empty partition key, which " +
              "DynamoDB rejects; use a non-empty name"
          )
        }
        if (bytes > maxNameBytes) {
          return Either.left(
            `lock name ${quote(name)} is ${bytes} UTF-8 bytes, over this store's limit of ${maxNameBytes}: ` +
              `DynamoDB partition keys hold at most ${partitionKeyMaxBytes} bytes, ` +
              (prefix === ""
                ? "and this store has no prefix"
                : `and the prefix ${quote(prefix)} takes ${prefixBytes} of them`) +
              "; use a shorter name"
          )
        }
        return Either.right({ [partitionKey]: { S: prefix + name } })
      },
      nameOf: (item) => {
        const value = stringAt(item, partitionKey)
        return value !== undefined && value.startsWith(prefix) ? value.slice(prefix.length) : undefined
      },
      describeKey
    }
  }
  return {
    partitionKey,
    sortKey,
    prefix,
    maxNameBytes: sortKeyMaxBytes,
    keyOf: (name) => {
      const bytes = utf8Bytes(name)
      if (bytes === 0) {
        return Either.left(
          `a lock name must not be empty: it is the sort key (under the prefix ${quote(prefix)}, the partition key ` +
            `value), and DynamoDB rejects empty keys; use a non-empty name`
        )
      }
      if (bytes > sortKeyMaxBytes) {
        return Either.left(
          `lock name ${quote(name)} is ${bytes} UTF-8 bytes, over this store's limit of ${sortKeyMaxBytes}: names ` +
            `are DynamoDB sort keys, which hold at most ${sortKeyMaxBytes} bytes (the prefix ${quote(prefix)} is ` +
            `the partition key value and does not count); use a shorter name`
        )
      }
      return Either.right({ [partitionKey]: { S: prefix }, [sortKey]: { S: name } })
    },
    nameOf: (item) => (stringAt(item, partitionKey) === prefix ? stringAt(item, sortKey) : undefined),
    describeKey
  }
}
