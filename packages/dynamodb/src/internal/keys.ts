/**
 * Where a lock name lives in the table: the item key for a name, the name for an item, and the byte limits that
 * follow from DynamoDB's key size limits.
 *
 * @internal
 */
import type { AttributeValue } from "@aws-sdk/client-dynamodb"

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
  /** The item key of a name, or `undefined` if the name can not be a DynamoDB key (too long or empty). */
  readonly keyOf: (name: string) => Record<string, AttributeValue> | undefined
  /** The name an item stands for, or `undefined` if the item is not keyed as this layout keys names. */
  readonly nameOf: (item: Record<string, AttributeValue>) => string | undefined
  /** A readable rendering of an item's key, for error messages. */
  readonly describeKey: (item: Record<string, AttributeValue>) => string
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
    const maxNameBytes = partitionKeyMaxBytes - utf8Bytes(prefix)
    return {
      partitionKey,
      sortKey,
      prefix,
      maxNameBytes,
      keyOf: (name) => {
        const bytes = utf8Bytes(name)
        // DynamoDB rejects empty key strings, so an empty name needs a prefix in front of it.
        if (bytes > maxNameBytes || bytes + utf8Bytes(prefix) === 0) return undefined
        return { [partitionKey]: { S: prefix + name } }
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
      if (bytes > sortKeyMaxBytes || bytes === 0) return undefined
      return { [partitionKey]: { S: prefix }, [sortKey]: { S: name } }
    },
    nameOf: (item) => (stringAt(item, partitionKey) === prefix ? stringAt(item, sortKey) : undefined),
    describeKey
  }
}
