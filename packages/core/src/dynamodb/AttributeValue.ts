/**
 * DynamoDB's attribute values as plain data: the shapes the store's requests carry and its answers hold, written
 * without the SDK so that the rules about items, keys and conditions need no runtime. The union is structurally the
 * SDK's own (`@aws-sdk/client-dynamodb`'s `AttributeValue`), so a shell passes values either way without converting.
 *
 * @since 1.0.0
 */

/**
 * One attribute value: one of DynamoDB's types, named by its single key (`S` a string, `N` a number as a string,
 * `M` a map, ...).
 *
 * @since 1.0.0
 * @category models
 */
export type AttributeValue =
  | { S: string }
  | { N: string }
  | { B: Uint8Array }
  | { SS: Array<string> }
  | { NS: Array<string> }
  | { BS: Array<Uint8Array> }
  | { M: Record<string, AttributeValue> }
  | { L: Array<AttributeValue> }
  | { NULL: boolean }
  | { BOOL: boolean }
  | { $unknown: [string, unknown] }

/**
 * An item, a key, or the values of a request: attribute values by name.
 *
 * @since 1.0.0
 * @category models
 */
export type ItemMap = Record<string, AttributeValue>

/**
 * @since 1.0.0
 * @category constructors
 */
export const num = (n: number): AttributeValue => ({ N: String(n) })

/**
 * @since 1.0.0
 * @category constructors
 */
export const str = (s: string): AttributeValue => ({ S: s })

/**
 * The number 1, shared by every request that counts up (frozen: one object serves them all).
 *
 * @since 1.0.0
 * @category constants
 */
export const one = Object.freeze(num(1))

/**
 * The number 0, shared as `one` is.
 *
 * @since 1.0.0
 * @category constants
 */
export const zero = Object.freeze(num(0))

/**
 * The string an item holds at `attribute`, or `undefined` when it holds none or another type.
 *
 * @since 1.0.0
 * @category getters
 */
export const stringAt = (item: ItemMap, attribute: string): string | undefined => {
  const value = item[attribute]
  return value !== undefined && "S" in value && typeof value.S === "string" ? value.S : undefined
}

/**
 * A value's type as a decoding error names it: "a value of type N".
 *
 * @since 1.0.0
 * @category getters
 */
export const describeType = (value: AttributeValue): string => {
  const [type] = Object.keys(value)
  return type === undefined ? "an empty value" : `a value of type ${type}`
}
