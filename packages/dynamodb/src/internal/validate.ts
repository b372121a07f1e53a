/**
 * Checks of store and table options, before any request: a wrong option is a `LockConfigError` that says what is
 * allowed. Options may come from untyped code or configuration, so each check looks at the raw value.
 *
 * @internal
 */
import { LockConfigError } from "@leasehold/lock/LockError"
import * as Duration from "effect/Duration"
import * as Option from "effect/Option"
import * as Item from "./item.js"

const tableNamePattern = /^[a-zA-Z0-9_.-]{3,255}$/

/** A value as a message quotes it: strings in quotes, so that "" and " " are visible. */
export const describe = (value: unknown): string => {
  if (typeof value === "string") return JSON.stringify(value.length > 64 ? value.slice(0, 64) + "…" : value)
  if (typeof value === "bigint") return `${value}n`
  if (Array.isArray(value)) return `[${value.map(describe).join(", ")}]`
  return String(value)
}

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
 * Whether a raw duration input is negative or NaN. Effect's `Duration.decode` turns both into a zero duration, which
 * would hide the mistake (or, where zero is allowed, silently mean "none"), so they are caught before decoding.
 */
const negativeOrNaN = (input: unknown): boolean => {
  switch (typeof input) {
    case "number":
      return Number.isNaN(input) || input < 0
    case "bigint":
      return input < 0n
    case "string":
      return /^\s*-|nan/i.test(input)
    default:
      return Array.isArray(input) && input.some((part) => typeof part !== "number" || Number.isNaN(part) || part < 0)
  }
}

/**
 * A duration in whole milliseconds, finite, positive (or zero where `allowZero`), or the error that says it is not.
 *
 * @internal
 */
export const duration = (option: string, input: unknown, allowZero: boolean): number | LockConfigError => {
  const invalid = () =>
    config(
      option,
      `${option} must be a finite duration ${allowZero ? "of 0 or more" : "over 0"} in whole milliseconds, such as ` +
        `"3 seconds" or 3000 (ms); got ${describe(input)}`
    )
  if (negativeOrNaN(input)) return invalid()
  const decoded = Duration.decodeUnknown(input)
  if (Option.isNone(decoded) || !Duration.isFinite(decoded.value)) return invalid()
  const millis = Duration.toMillis(decoded.value)
  if (!Number.isSafeInteger(millis) || millis < 0 || (!allowZero && millis === 0)) return invalid()
  return millis
}

/** @internal */
export const boolean = (option: string, value: unknown): LockConfigError | undefined =>
  value === undefined || typeof value === "boolean"
    ? undefined
    : config(option, `${option} must be true or false; got ${describe(value)}`)
