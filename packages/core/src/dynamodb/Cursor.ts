/**
 * The `list` cursor of partition-key mode: the Scan's `LastEvaluatedKey`, as base64url JSON. Opaque to callers; the
 * store checks that what comes back is a start key of its own layout before it sends anything.
 *
 * @since 1.0.0
 */
import * as Checked from "../Checked.js"
import * as Utf8 from "../record/Utf8.js"
import type { ItemMap } from "./AttributeValue.js"
import * as Keys from "./Keys.js"

const base64url = /^[A-Za-z0-9_-]+$/

/**
 * DynamoDB's `Limit` is a 32-bit integer; a larger page (an infinite one: no limit) is read in requests this big.
 *
 * @since 1.0.0
 * @category constants
 */
export const maxRequestLimit = 2 ** 31 - 1

/**
 * Why a cursor is not one a page of `source` ("store", "table") returned: it is refused before anything is sent.
 *
 * @since 1.0.0
 * @category messages
 */
export const malformedMessage = (cursor: string, problem: string, source: "store" | "table"): string =>
  `list cursor ${JSON.stringify(cursor.length > 80 ? cursor.slice(0, 80) + "…" : cursor)} is ` +
  `malformed: ${problem}; pass back a cursor exactly as a page of this ${source} returned it, or none to start ` +
  `from the beginning`

/**
 * The cursor of a Scan's last evaluated key.
 *
 * @since 1.0.0
 * @category encoding
 */
export const encode = (key: ItemMap): string => Buffer.from(JSON.stringify(key), "utf8").toString("base64url")

/**
 * The start key a cursor stands for, or what is wrong with it. A Scan's last evaluated key is any item's key (not
 * necessarily one of ours: the scan walks the whole table), so only its shape is checked: `{ [partitionKey]: { S } }`
 * with a value DynamoDB could key.
 *
 * @since 1.0.0
 * @category encoding
 */
export const decode = (cursor: string, partitionKey: string): Checked.Checked<ItemMap> => {
  if (!base64url.test(cursor)) return Checked.invalid("it is not base64url text")
  let parsed: unknown
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"))
  } catch {
    return Checked.invalid("it does not decode to JSON")
  }
  const shape = `a start key of the form {"${partitionKey}":{"S":"..."}}`
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return Checked.invalid(`it decodes to ${JSON.stringify(parsed)}, not ${shape}`)
  }
  const attributes = Object.keys(parsed)
  const value = (parsed as Record<string, unknown>)[partitionKey]
  if (
    attributes.length !== 1 || typeof value !== "object" || value === null || Object.keys(value).length !== 1 ||
    typeof (value as { readonly S?: unknown }).S !== "string"
  ) {
    return Checked.invalid(`its key ${JSON.stringify(parsed).slice(0, 200)} is not ${shape}`)
  }
  const s = (value as { readonly S: string }).S
  const bytes = Utf8.byteLength(s)
  if (bytes === 0 || bytes > Keys.partitionKeyMaxBytes) {
    return Checked.invalid(`its key value is ${bytes} UTF-8 bytes; DynamoDB keys are 1 to ${Keys.partitionKeyMaxBytes}`)
  }
  return Checked.ok({ [partitionKey]: { S: s } })
}
