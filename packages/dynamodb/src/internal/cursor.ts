/**
 * The `list` cursor of partition-key mode: the Scan's `LastEvaluatedKey`, as base64url JSON. Opaque to callers; the
 * store checks that what comes back is a start key of its own layout before it sends anything.
 *
 * @internal
 */
import type { AttributeValue } from "@aws-sdk/client-dynamodb"
import { LockStoreError } from "@leasehold/lock/LockError"
import * as Utf8 from "@leasehold/lock/Utf8"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Keys from "./keys.js"

type Key = Record<string, AttributeValue>

const base64url = /^[A-Za-z0-9_-]+$/

/**
 * DynamoDB's `Limit` is a 32-bit integer; a larger page (an infinite one: no limit) is read in requests this big.
 *
 * @internal
 */
export const maxRequestLimit = 2 ** 31 - 1

/**
 * A cursor that is not one a page of `source` ("store", "table") returned: refused before anything is sent.
 *
 * @internal
 */
export const malformed = (cursor: string, problem: string, source: "store" | "table") =>
  Effect.fail(
    new LockStoreError({
      operation: "list",
      retryable: false,
      mayHaveApplied: false,
      message: `list cursor ${JSON.stringify(cursor.length > 80 ? cursor.slice(0, 80) + "…" : cursor)} is ` +
        `malformed: ${problem}; pass back a cursor exactly as a page of this ${source} returned it, or none to start ` +
        `from the beginning`
    })
  )

/** @internal */
export const encode = (key: Key): string => Buffer.from(JSON.stringify(key), "utf8").toString("base64url")

/**
 * The start key a cursor stands for, or what is wrong with it. A Scan's last evaluated key is any item's key (not
 * necessarily one of ours: the scan walks the whole table), so only its shape is checked: `{ [partitionKey]: { S } }`
 * with a value DynamoDB could key.
 *
 * @internal
 */
export const decode = (cursor: string, partitionKey: string): Either.Either<Key, string> => {
  if (!base64url.test(cursor)) return Either.left("it is not base64url text")
  let parsed: unknown
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"))
  } catch {
    return Either.left("it does not decode to JSON")
  }
  const shape = `a start key of the form {"${partitionKey}":{"S":"..."}}`
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return Either.left(`it decodes to ${JSON.stringify(parsed)}, not ${shape}`)
  }
  const attributes = Object.keys(parsed)
  const value = (parsed as Record<string, unknown>)[partitionKey]
  if (
    attributes.length !== 1 || typeof value !== "object" || value === null || Object.keys(value).length !== 1 ||
    typeof (value as { readonly S?: unknown }).S !== "string"
  ) {
    return Either.left(`its key ${JSON.stringify(parsed).slice(0, 200)} is not ${shape}`)
  }
  const s = (value as { readonly S: string }).S
  const bytes = Utf8.byteLength(s)
  if (bytes === 0 || bytes > Keys.partitionKeyMaxBytes) {
    return Either.left(`its key value is ${bytes} UTF-8 bytes; DynamoDB keys are 1 to ${Keys.partitionKeyMaxBytes}`)
  }
  return Either.right({ [partitionKey]: { S: s } })
}
