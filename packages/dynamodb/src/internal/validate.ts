/**
 * Checks of store and table options, before any request: a wrong option is a `LockConfigError` that says what is
 * allowed. Options may come from untyped code or configuration, so each check looks at the raw value.
 *
 * @internal
 */
import * as LockDuration from "@leasehold/lock/LockDuration"
import { LockConfigError } from "@leasehold/lock/LockError"
import * as Utf8 from "@leasehold/lock/Utf8"
import * as Either from "effect/Either"
import * as Item from "./item.js"
import * as Keys from "./keys.js"
import * as SemaphoreItem from "./semaphoreItem.js"

const tableNamePattern = /^[a-zA-Z0-9_.-]{3,255}$/

/** A value as a message quotes it. */
export const describe = LockDuration.describe

/** @internal */
export const config = (option: string, message: string): LockConfigError => new LockConfigError({ option, message })

/** @internal */
export const tableName = (name: unknown): LockConfigError | undefined =>
  typeof name === "string" && tableNamePattern.test(name) ? undefined : config(
    "tableName",
    `table name ${describe(name)} is not a DynamoDB table name: use 3 to 255 characters from a-z, A-Z, 0-9, "_", ` +
      `"-" and "."`
  )

/** What a key attribute may not be called: the attributes of lock and semaphore items. */
const itemAttributes: ReadonlyArray<string> = Array.from(
  new Set([...Item.attributeNames, ...Object.values(SemaphoreItem.attributes)])
)

/** @internal */
export const keyAttributes = (partitionKey: unknown, sortKey: unknown): LockConfigError | undefined => {
  for (const [option, name] of [["partitionKey", partitionKey], ["sortKey", sortKey]] as const) {
    if (name === undefined && option === "sortKey") continue
    if (typeof name !== "string") {
      return config(option, `${option} must be an attribute name (a string); got ${describe(name)}`)
    }
    const bytes = Utf8.byteLength(name)
    if (bytes === 0 || bytes > 255) {
      return config(option, `${option} must be an attribute name of 1 to 255 bytes; got ${describe(name)}`)
    }
    if (itemAttributes.includes(name)) {
      return config(
        option,
        `${option} "${name}" is one of the lock and semaphore items' own attributes (${
          itemAttributes.join(", ")
        }): choose another attribute name`
      )
    }
  }
  if (sortKey !== undefined && sortKey === partitionKey) {
    return config("sortKey", `sortKey must differ from partitionKey ("${sortKey}")`)
  }
  return undefined
}

/**
 * The store's `prefix`, or the error that says why it is not one: it must be well-formed and leave room in the
 * partition key for a name after it; with a sort key it is the partition key value itself, which must not be empty.
 *
 * @internal
 */
export const prefix = (prefix: unknown, sortKey: string | undefined): string | LockConfigError => {
  if (typeof prefix !== "string") return config("prefix", `prefix must be a string; got ${describe(prefix)}`)
  if (!Utf8.isWellFormed(prefix)) {
    return config(
      "prefix",
      `prefix ${describe(prefix)} is not well-formed UTF-16 (it has a lone surrogate): DynamoDB would store it as ` +
        `U+FFFD, so other prefixes would share its keys; use a well-formed prefix`
    )
  }
  const prefixBytes = Utf8.byteLength(prefix)
  if (sortKey !== undefined) {
    if (prefixBytes > Keys.partitionKeyMaxBytes) {
      return config(
        "prefix",
        `prefix is ${prefixBytes} UTF-8 bytes; DynamoDB partition keys hold at most ${Keys.partitionKeyMaxBytes}`
      )
    }
    return prefixBytes === 0
      ? config("prefix", "with a sortKey, prefix is the partition key value and must not be empty")
      : prefix
  }
  if (prefix === "" || Keys.maxNameBytesAfter(prefix) >= 1) return prefix
  return config(
    "prefix",
    `prefix is ${prefixBytes} UTF-8 bytes (${Utf8.byteLength(Keys.escape(prefix))} escaped, with ` +
      `"${Keys.separator}" after it in every key); DynamoDB partition keys hold at most ${Keys.partitionKeyMaxBytes}, ` +
      `and a lock name must fit after it`
  )
}

/**
 * A duration in whole milliseconds, finite, positive (or zero where `allowZero`), or the error that says it is not.
 * A fraction of a millisecond is refused rather than rounded: these are request and table timings, set by hand.
 *
 * @internal
 */
export const duration = (option: string, input: unknown, allowZero: boolean): number | LockConfigError => {
  const millis = LockDuration.toMillis(input)
  if (Either.isRight(millis) && Number.isSafeInteger(millis.right) && (allowZero || millis.right > 0)) {
    return millis.right
  }
  return config(
    option,
    `${option} must be a finite duration ${allowZero ? "of 0 or more" : "over 0"} in whole milliseconds, such as ` +
      `"3 seconds" or 3000 (ms); got ${describe(input)}`
  )
}

/** @internal */
export const boolean = (option: string, value: unknown): LockConfigError | undefined =>
  value === undefined || typeof value === "boolean"
    ? undefined
    : config(option, `${option} must be true or false; got ${describe(value)}`)
