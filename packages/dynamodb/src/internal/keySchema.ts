/**
 * The table key schema a store expects, and how to say it.
 *
 * @internal
 */
import type { AttributeDefinition, KeySchemaElement } from "@aws-sdk/client-dynamodb"

/** @internal */
export interface Expected {
  readonly partitionKey: string
  readonly sortKey: string | undefined
}

/** `{key: S}`, or `{family: S (hash), name: S (range)}`. */
export const describeExpected = (expected: Expected): string =>
  expected.sortKey === undefined
    ? `{${expected.partitionKey}: S}`
    : `{${expected.partitionKey}: S (hash), ${expected.sortKey}: S (range)}`

/** @internal */
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

/** @internal */
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

/** The `KeySchema` and `AttributeDefinitions` of a `CreateTable` request. */
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
