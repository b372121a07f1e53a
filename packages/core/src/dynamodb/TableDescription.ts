/**
 * What a lock table's description says to the table helpers: whether it is keyed as a store expects, how a store
 * could use it, and whether TTL removes idle rows. The shapes are the parts of `DescribeTable` and
 * `DescribeTimeToLive` answers that are read, structurally the SDK's.
 *
 * @since 1.0.0
 */
import * as KeySchema from "./KeySchema.js"
import * as LockItem from "./LockItem.js"
import * as StoreOptions from "./StoreOptions.js"

/**
 * The attribute that holds each item's expiry for DynamoDB TTL, in epoch seconds.
 *
 * @since 1.0.0
 * @category constants
 */
export const ttlAttribute: string = LockItem.attributes.ttl

/**
 * What `DescribeTable` says of a table, as far as the helpers read it.
 *
 * @since 1.0.0
 * @category models
 */
export interface Table {
  readonly TableName?: string | undefined
  readonly TableStatus?: string | undefined
  readonly KeySchema?: ReadonlyArray<KeySchema.KeySchemaElement> | undefined
  readonly AttributeDefinitions?: ReadonlyArray<KeySchema.AttributeDefinition> | undefined
}

/**
 * What `DescribeTimeToLive` says of a table's TTL.
 *
 * @since 1.0.0
 * @category models
 */
export interface Ttl {
  readonly TimeToLiveStatus?: string | undefined
  readonly AttributeName?: string | undefined
}

/**
 * Whether TTL cleanup of idle lock rows is on: `enabled` (on `ttl`, or being enabled), `unsupported` (the server has
 * no TTL API, e.g. dynalite: rows then stay until deleted by hand), `other-attribute` (the table already expires
 * items by another attribute, and DynamoDB allows one TTL attribute per table).
 *
 * @since 1.0.0
 * @category models
 */
export type TtlStatus = "enabled" | "unsupported" | "other-attribute"

/**
 * Something wrong with a lock table, with a message a person can act on.
 *
 * @since 1.0.0
 * @category models
 */
export interface TableProblem {
  readonly _tag: "TableMissing" | "TableNotActive" | "KeySchemaMismatch" | "TtlDisabled" | "TtlOnOtherAttribute"
  readonly message: string
}

/**
 * How an existing table is keyed: missing, usable by a lock store with these key options, or unusable.
 *
 * @since 1.0.0
 * @category models
 */
export type TableKeys =
  | { readonly _tag: "Missing" }
  | { readonly _tag: "Usable"; readonly partitionKey: string; readonly sortKey: string | undefined }
  | { readonly _tag: "Unusable"; readonly keySchema: string }

/**
 * Whether a table being created has become usable: ACTIVE, or a server that reports no status.
 *
 * @since 1.0.0
 * @category predicates
 */
export const isActive = (table: Table): boolean => table.TableStatus === "ACTIVE" || table.TableStatus === undefined

/**
 * The problem of a table keyed otherwise than `expected`, or `undefined`.
 *
 * @since 1.0.0
 * @category judgements
 */
export const keySchemaProblem = (table: Table, expected: KeySchema.Expected): TableProblem | undefined =>
  KeySchema.matches(expected, table.KeySchema ?? [], table.AttributeDefinitions ?? [])
    ? undefined
    : {
      _tag: "KeySchemaMismatch",
      message:
        `table "${table.TableName}" has key schema ${
          KeySchema.describeActual(table.KeySchema ?? [], table.AttributeDefinitions ?? [])
        }, but the store expects ${KeySchema.describeExpected(expected)}: use another table, or set the store's ` +
        `partitionKey/sortKey to the table's key attributes`
    }

/**
 * TTL as it is on: `enabled` on `ttl`, `other-attribute`, or `undefined` when it is off (or the server has none).
 *
 * @since 1.0.0
 * @category judgements
 */
export const ttlOn = (ttl: Ttl | undefined): "enabled" | "other-attribute" | undefined => {
  const status = ttl?.TimeToLiveStatus
  if (status !== "ENABLED" && status !== "ENABLING") return undefined
  return ttl?.AttributeName === ttlAttribute ? "enabled" : "other-attribute"
}

/**
 * The problem `checkTable` reports for a table that does not exist.
 *
 * @since 1.0.0
 * @category judgements
 */
export const missing = (tableName: string): TableProblem => ({
  _tag: "TableMissing",
  message: `table "${tableName}" does not exist: create it with DynamoLockStore.createTable(...) or ` +
    `\`leasehold table create --table ${tableName}\``
})

/**
 * What is wrong with an existing table for a store that expects `expected`: not ACTIVE, keyed otherwise, TTL off or
 * on another attribute.
 *
 * @since 1.0.0
 * @category judgements
 */
export const problems = (
  tableName: string,
  table: Table,
  expected: KeySchema.Expected,
  ttl: Ttl | undefined
): ReadonlyArray<TableProblem> => {
  const found: Array<TableProblem> = []
  if (table.TableStatus !== undefined && table.TableStatus !== "ACTIVE") {
    found.push({
      _tag: "TableNotActive",
      message: `table "${tableName}" is ${table.TableStatus}, not ACTIVE: wait, or look at it in the console`
    })
  }
  const schema = keySchemaProblem(table, expected)
  if (schema !== undefined) found.push(schema)
  const on = ttlOn(ttl)
  if (on === "other-attribute") {
    found.push({
      _tag: "TtlOnOtherAttribute",
      message: `table "${tableName}" expires items by "${ttl?.AttributeName}", not "${ttlAttribute}": ` +
        `idle lock rows will never be removed; use a table of its own for locks`
    })
  } else if (on === undefined) {
    found.push({
      _tag: "TtlDisabled",
      message: `TTL is off on table "${tableName}": idle lock rows are never removed; enable it on ` +
        `attribute "${ttlAttribute}" (createTable does; dynalite and other local servers may not support TTL)`
    })
  }
  return found
}

/**
 * How a lock store could use an existing table: with its key attributes as `partitionKey` and `sortKey` when they
 * are Strings named unlike the items' own attributes, or not at all.
 *
 * @since 1.0.0
 * @category judgements
 */
export const keysOf = (table: Table): TableKeys => {
  const keySchema = table.KeySchema ?? []
  const definitions = table.AttributeDefinitions ?? []
  const partitionKey = keySchema.find((element) => element.KeyType === "HASH")?.AttributeName
  const sortKey = keySchema.find((element) => element.KeyType === "RANGE")?.AttributeName
  const usable = partitionKey !== undefined &&
    // The problem's words are not shown: whether there is one is the answer.
    StoreOptions.keyAttributes(partitionKey, sortKey, String) === undefined &&
    KeySchema.matches({ partitionKey, sortKey }, keySchema, definitions)
  return usable
    ? { _tag: "Usable", partitionKey, sortKey }
    : { _tag: "Unusable", keySchema: KeySchema.describeActual(keySchema, definitions) }
}

/**
 * Whether an error name is a server's answer that it has no such operation: how a server without TTL (dynalite)
 * answers the TTL requests.
 *
 * @since 1.0.0
 * @category judgements
 */
export const isUnknownOperation = (errorName: string | undefined): boolean =>
  errorName === "UnknownOperationException" || errorName === "UnknownOperation"
