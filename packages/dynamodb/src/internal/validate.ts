/**
 * Checks of store and table options, before any request: a wrong option is a `LockConfigError` that says what is
 * allowed.
 *
 * @internal
 */
import { LockConfigError } from "@leasehold/lock/LockError"
import * as Duration from "effect/Duration"
import * as Item from "./item.js"

const tableNamePattern = /^[a-zA-Z0-9_.-]{3,255}$/

/** @internal */
export const tableName = (name: string): LockConfigError | undefined =>
  tableNamePattern.test(name) ? undefined : new LockConfigError({
    option: "tableName",
    message: `table name "${name}" is not a DynamoDB table name: use 3 to 255 characters from a-z, A-Z, 0-9, "_", ` +
      `"-" and "."`
  })

/** @internal */
export const keyAttributes = (partitionKey: string, sortKey: string | undefined): LockConfigError | undefined => {
  for (const [option, name] of [["partitionKey", partitionKey], ["sortKey", sortKey]] as const) {
    if (name === undefined) continue
    const bytes = Buffer.byteLength(name, "utf8")
    if (bytes === 0 || bytes > 255) {
      return new LockConfigError({ option, message: `${option} must be an attribute name of 1 to 255 bytes` })
    }
    if (Item.attributeNames.includes(name)) {
      return new LockConfigError({
        option,
        message: `${option} "${name}" is one of the lock item's own attributes (${
          Item.attributeNames.join(", ")
        }): choose another attribute name`
      })
    }
  }
  if (sortKey !== undefined && sortKey === partitionKey) {
    return new LockConfigError({ option: "sortKey", message: `sortKey must differ from partitionKey ("${sortKey}")` })
  }
  return undefined
}

/** A duration that is positive and finite, in milliseconds, or the error that says it is not. */
export const positiveDuration = (option: string, input: Duration.DurationInput): number | LockConfigError => {
  const duration = Duration.decodeUnknown(input)
  if (duration._tag === "Some" && Duration.isFinite(duration.value) && Duration.toMillis(duration.value) > 0) {
    return Duration.toMillis(duration.value)
  }
  return new LockConfigError({ option, message: `${option} must be a positive, finite duration` })
}

/** @internal */
export const config = (option: string, message: string): LockConfigError => new LockConfigError({ option, message })
