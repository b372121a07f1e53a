/**
 * The table key schema a store expects, and how to say it.
 *
 * @since 1.0.0
 */

/**
 * One element of a table's key schema, as `DescribeTable` returns it and `CreateTable` takes it (the SDK's
 * `KeySchemaElement`, structurally).
 *
 * @since 1.0.0
 * @category models
 */
export interface KeySchemaElement {
  AttributeName: string | undefined
  KeyType: "HASH" | "RANGE" | undefined
}

/**
 * The type of one key attribute (the SDK's `AttributeDefinition`, structurally).
 *
 * @since 1.0.0
 * @category models
 */
export interface AttributeDefinition {
  AttributeName: string | undefined
  AttributeType: "S" | "N" | "B" | undefined
}

/**
 * The key attributes a store is configured with: a String partition key and, in sort-key mode, a String sort key.
 *
 * @since 1.0.0
 * @category models
 */
export interface Expected {
  readonly partitionKey: string
  readonly sortKey: string | undefined
}

/**
 * `{key: S}`, or `{family: S (hash), name: S (range)}`.
 *
 * @since 1.0.0
 * @category messages
 */
export const describeExpected = (expected: Expected): string =>
  expected.sortKey === undefined
    ? `{${expected.partitionKey}: S}`
    : `{${expected.partitionKey}: S (hash), ${expected.sortKey}: S (range)}`

/**
 * A table's key schema as messages show it, `?` for what it does not say.
 *
 * @since 1.0.0
 * @category messages
 */
export const describeActual = (
  keySchema: ReadonlyArray<KeySchemaElement>,
  definitions: ReadonlyArray<AttributeDefinition>
): string => {
  const typeOf = (name: string | undefined) =>
    definitions.find((definition) => definition.AttributeName === name)?.AttributeType ?? "?"
  const hash = keySchema.find((element) => element.KeyType === "HASH")?.AttributeName
  const range = keySchema.find((element) => element.KeyType === "RANGE")?.AttributeName
  return range === undefined
    ? `{${hash ?? "?"}: ${typeOf(hash)}}`
    : `{${hash ?? "?"}: ${typeOf(hash)} (hash), ${range}: ${typeOf(range)} (range)}`
}

/**
 * Whether a table's key schema is the expected one, String types included.
 *
 * @since 1.0.0
 * @category predicates
 */
export const matches = (
  expected: Expected,
  keySchema: ReadonlyArray<KeySchemaElement>,
  definitions: ReadonlyArray<AttributeDefinition>
): boolean => {
  const typeOf = (name: string | undefined) =>
    definitions.find((definition) => definition.AttributeName === name)?.AttributeType
  const hash = keySchema.find((element) => element.KeyType === "HASH")?.AttributeName
  const range = keySchema.find((element) => element.KeyType === "RANGE")?.AttributeName
  return hash === expected.partitionKey && typeOf(hash) === "S" && range === expected.sortKey &&
    (range === undefined || typeOf(range) === "S")
}

/**
 * The `KeySchema` and `AttributeDefinitions` of a `CreateTable` request.
 *
 * @since 1.0.0
 * @category requests
 */
export const definition = (expected: Expected): {
  readonly KeySchema: Array<KeySchemaElement>
  readonly AttributeDefinitions: Array<AttributeDefinition>
} =>
  expected.sortKey === undefined
    ? {
      KeySchema: [{ AttributeName: expected.partitionKey, KeyType: "HASH" }],
      AttributeDefinitions: [{ AttributeName: expected.partitionKey, AttributeType: "S" }]
    }
    : {
      KeySchema: [
        { AttributeName: expected.partitionKey, KeyType: "HASH" },
        { AttributeName: expected.sortKey, KeyType: "RANGE" }
      ],
      AttributeDefinitions: [
        { AttributeName: expected.partitionKey, AttributeType: "S" },
        { AttributeName: expected.sortKey, AttributeType: "S" }
      ]
    }
