/**
 * Checks of the DynamoDB store's and table helpers' options, before any request: a wrong option is a problem that
 * names the option and says what is allowed. Options may come from untyped code or configuration, so each check looks
 * at the raw value. Times are milliseconds here; the shell converts its durations and says how to quote a raw value.
 *
 * @since 1.0.0
 */
import * as Utf8 from "../record/Utf8.js"
import * as Keys from "./Keys.js"
import type * as KeySchema from "./KeySchema.js"
import * as Item from "./LockItem.js"
import * as SemaphoreItem from "./SemaphoreItem.js"

/**
 * What is wrong with one option: the shell turns it into its configuration error.
 *
 * @since 1.0.0
 * @category models
 */
export interface ConfigProblem {
  readonly _tag: "ConfigProblem"
  readonly option: string
  readonly message: string
}

/**
 * How a message quotes a raw value (a string in quotes, so that "" and " " are visible).
 *
 * @since 1.0.0
 * @category models
 */
export type Describe = (value: unknown) => string

/**
 * @since 1.0.0
 * @category constructors
 */
export const problem = (option: string, message: string): ConfigProblem => ({ _tag: "ConfigProblem", option, message })

/**
 * @since 1.0.0
 * @category predicates
 */
export const isProblem = (value: unknown): value is ConfigProblem =>
  typeof value === "object" && value !== null && (value as { readonly _tag?: unknown })._tag === "ConfigProblem"

/**
 * The partition key attribute: short and schema-neutral.
 *
 * @since 1.0.0
 * @category defaults
 */
export const defaultPartitionKey = "key"

/**
 * In sort-key mode without a `prefix`, the partition every lock name lives in: one family per table by default.
 *
 * @since 1.0.0
 * @category defaults
 */
export const defaultFamily = "leasehold"

/**
 * The family a store lists and keys when its options name none: no prefix, or in sort-key mode `defaultFamily`.
 *
 * @since 1.0.0
 * @category defaults
 */
export const prefixOrDefault = <A>(prefix: A | undefined, sortKey: string | undefined): A | string =>
  prefix ?? (sortKey === undefined ? "" : defaultFamily)

const tableNamePattern = /^[a-zA-Z0-9_.-]{3,255}$/

/**
 * @since 1.0.0
 * @category checks
 */
export const tableName = (name: unknown, describe: Describe): ConfigProblem | undefined =>
  typeof name === "string" && tableNamePattern.test(name) ? undefined : problem(
    "tableName",
    `table name ${describe(name)} is not a DynamoDB table name: use 3 to 255 characters from a-z, A-Z, 0-9, "_", ` +
      `"-" and "."`
  )

/** What a key attribute may not be called: the attributes of lock and semaphore items. */
const itemAttributes: ReadonlyArray<string> = Array.from(
  new Set([...Item.attributeNames, ...Object.values(SemaphoreItem.attributes)])
)

/**
 * @since 1.0.0
 * @category checks
 */
export const keyAttributes = (
  partitionKey: unknown,
  sortKey: unknown,
  describe: Describe
): ConfigProblem | undefined => {
  for (const [option, name] of [["partitionKey", partitionKey], ["sortKey", sortKey]] as const) {
    if (name === undefined && option === "sortKey") continue
    if (typeof name !== "string") {
      return problem(option, `${option} must be an attribute name (a string); got ${describe(name)}`)
    }
    const bytes = Utf8.byteLength(name)
    if (bytes === 0 || bytes > 255) {
      return problem(option, `${option} must be an attribute name of 1 to 255 bytes; got ${describe(name)}`)
    }
    if (itemAttributes.includes(name)) {
      return problem(
        option,
        `${option} "${name}" is one of the lock and semaphore items' own attributes (${
          itemAttributes.join(", ")
        }): choose another attribute name`
      )
    }
  }
  if (sortKey !== undefined && sortKey === partitionKey) {
    return problem("sortKey", `sortKey must differ from partitionKey ("${sortKey}")`)
  }
  return undefined
}

/**
 * The store's `prefix`, or the problem that says why it is not one: it must be well-formed and leave room in the
 * partition key for a name after it; with a sort key it is the partition key value itself, which must not be empty.
 *
 * @since 1.0.0
 * @category checks
 */
export const prefix = (prefix: unknown, sortKey: string | undefined, describe: Describe): string | ConfigProblem => {
  if (typeof prefix !== "string") return problem("prefix", `prefix must be a string; got ${describe(prefix)}`)
  if (!Utf8.isWellFormed(prefix)) {
    return problem(
      "prefix",
      `prefix ${describe(prefix)} is not well-formed UTF-16 (it has a lone surrogate): DynamoDB would store it as ` +
        `U+FFFD, so other prefixes would share its keys; use a well-formed prefix`
    )
  }
  const prefixBytes = Utf8.byteLength(prefix)
  if (sortKey !== undefined) {
    if (prefixBytes > Keys.partitionKeyMaxBytes) {
      return problem(
        "prefix",
        `prefix is ${prefixBytes} UTF-8 bytes; DynamoDB partition keys hold at most ${Keys.partitionKeyMaxBytes}`
      )
    }
    return prefixBytes === 0
      ? problem("prefix", "with a sortKey, prefix is the partition key value and must not be empty")
      : prefix
  }
  if (prefix === "" || Keys.maxNameBytesAfter(prefix) >= 1) return prefix
  return problem(
    "prefix",
    `prefix is ${prefixBytes} UTF-8 bytes (${Utf8.byteLength(Keys.escape(prefix))} escaped, with ` +
      `"${Keys.separator}" after it in every key); DynamoDB partition keys hold at most ${Keys.partitionKeyMaxBytes}, ` +
      `and a lock name must fit after it`
  )
}

/**
 * A duration option as the shell read it: its exact milliseconds (`undefined` when the input is no finite,
 * non-negative duration), and the input as given, for the message.
 *
 * @since 1.0.0
 * @category models
 */
export interface DurationOption {
  readonly millis: number | undefined
  readonly input: unknown
}

/**
 * A duration in whole milliseconds, finite, positive (or zero where `allowZero`), or the problem that says it is not.
 * A fraction of a millisecond is refused rather than rounded: these are request and table timings, set by hand.
 *
 * @since 1.0.0
 * @category checks
 */
export const duration = (
  option: string,
  value: DurationOption,
  allowZero: boolean,
  describe: Describe
): number | ConfigProblem => {
  const millis = value.millis
  if (millis !== undefined && Number.isSafeInteger(millis) && (allowZero || millis > 0)) return millis
  return problem(
    option,
    `${option} must be a finite duration ${allowZero ? "of 0 or more" : "over 0"} in whole milliseconds, such as ` +
      `"3 seconds" or 3000 (ms); got ${describe(value.input)}`
  )
}

/**
 * @since 1.0.0
 * @category checks
 */
export const boolean = (option: string, value: unknown, describe: Describe): ConfigProblem | undefined =>
  value === undefined || typeof value === "boolean"
    ? undefined
    : problem(option, `${option} must be true or false; got ${describe(value)}`)

/**
 * @since 1.0.0
 * @category checks
 */
export const maxRetries = (value: unknown, describe: Describe): number | ConfigProblem =>
  typeof value !== "number" || !Number.isSafeInteger(value) || value < 0
    ? problem("maxRetries", `maxRetries must be a whole number, 0 or more; got ${describe(value)}`)
    : value

/**
 * The key options of a table helper, checked: the key schema they ask for.
 *
 * @since 1.0.0
 * @category checks
 */
export const tableKeys = (
  options: { readonly tableName: unknown; readonly partitionKey: string | undefined; readonly sortKey: unknown },
  describe: Describe
): KeySchema.Expected | ConfigProblem => {
  const partitionKey = options.partitionKey ?? defaultPartitionKey
  const invalid = tableName(options.tableName, describe) ?? keyAttributes(partitionKey, options.sortKey, describe)
  return invalid ?? { partitionKey, sortKey: options.sortKey as string | undefined }
}

/**
 * The store's options, with the defaults the shell applied, durations in milliseconds.
 *
 * @since 1.0.0
 * @category models
 */
export interface StoreOptions {
  readonly tableName: unknown
  readonly partitionKey: string | undefined
  readonly sortKey: string | undefined
  readonly prefix: unknown
  readonly clockSkewGuard: unknown
  readonly maxRetries: unknown
  readonly requestTimeout: DurationOption
  readonly retryBaseDelay: DurationOption
  readonly ttlRetention: DurationOption
}

/**
 * The store's options, resolved: its key layout and timings.
 *
 * @since 1.0.0
 * @category models
 */
export interface Resolved {
  readonly _tag: "Resolved"
  readonly layout: Keys.KeyLayout
  readonly expected: KeySchema.Expected
  readonly requestTimeoutMs: number
  readonly retryBaseDelayMs: number
  readonly maxRetries: number
  readonly ttlRetentionMs: number
}

/**
 * Resolves a store's options, or says which one is wrong (the first, in the order they are checked).
 *
 * @since 1.0.0
 * @category checks
 */
export const resolve = (options: StoreOptions, describe: Describe): Resolved | ConfigProblem => {
  const partitionKey = options.partitionKey ?? defaultPartitionKey
  const sortKey = options.sortKey
  const invalid = tableName(options.tableName, describe) ?? keyAttributes(partitionKey, sortKey, describe) ??
    boolean("clockSkewGuard", options.clockSkewGuard, describe)
  if (invalid !== undefined) return invalid
  const family = prefix(prefixOrDefault(options.prefix, sortKey), sortKey, describe)
  if (typeof family !== "string") return family
  const retries = maxRetries(options.maxRetries, describe)
  if (typeof retries !== "number") return retries
  const requestTimeoutMs = duration("requestTimeout", options.requestTimeout, false, describe)
  if (typeof requestTimeoutMs !== "number") return requestTimeoutMs
  const retryBaseDelayMs = duration("retryBaseDelay", options.retryBaseDelay, false, describe)
  if (typeof retryBaseDelayMs !== "number") return retryBaseDelayMs
  const ttlRetentionMs = duration("ttlRetention", options.ttlRetention, false, describe)
  if (typeof ttlRetentionMs !== "number") return ttlRetentionMs
  return {
    _tag: "Resolved",
    layout: Keys.make({ partitionKey, sortKey, prefix: family }),
    expected: { partitionKey, sortKey },
    requestTimeoutMs,
    retryBaseDelayMs,
    maxRetries: retries,
    ttlRetentionMs
  }
}
