/**
 * Checks of store and table options, before any request: a wrong option is a `LockConfigError` that says what is
 * allowed. Options may come from untyped code or configuration, so each check looks at the raw value.
 *
 * @internal
 */
import * as LockDuration from "@leasehold/lock/LockDuration"
import { LockConfigError } from "@leasehold/lock/LockError"
import * as Either from "effect/Either"
import * as Item from "./item.js"

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

/** @internal */
export const keyAttributes = (partitionKey: unknown, sortKey: unknown): LockConfigError | undefined => {
  for (const [option, name] of [["partitionKey", partitionKey], ["sortKey", sortKey]] as const) {
    if (name === undefined && option === "sortKey") continue
    if (typeof name !== "string") {
      return config(option, `${option} must be an attribute name (a string); got ${describe(name)}`)
    }
    const bytes = Buffer.byteLength(name, "utf8")
    if (bytes === 0 || bytes > 255) {
      return config(option, `${option} must be an attribute name of 1 to 255 bytes; got ${describe(name)}`)
    }
    if (Item.attributeNames.includes(name)) {
      return config(
        option,
        `${option} "${name}" is one of the lock item's own attributes (${
          Item.attributeNames.join(", ")
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
