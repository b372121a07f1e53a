/**
 * What a DynamoDB request costs in request units, the unit a user of DynamoDB pays in (on demand) or provisions
 * (capacity units), after AWS's rules in "DynamoDB read and write operations" (Amazon DynamoDB Developer Guide,
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html):
 *
 * - a write (PutItem, UpdateItem, DeleteItem) costs one write unit per 1 KB of the item, rounded up, the larger of the
 *   item before and after the write, and at least one; a conditional write whose condition fails costs the same, on
 *   the item as it stands;
 * - a strongly consistent read costs one read unit per 4 KB of the item, rounded up, and at least one (an item that is
 *   not there costs the minimum); an eventually consistent read half that; a transactional one twice that;
 * - a Query or Scan costs the same per 4 KB of all the items it read, added up before rounding.
 *
 * An item's size is the sum of its attributes' sizes, each the UTF-8 length of its name and the size of its value
 * (`itemSize`). Plain functions over plain data: the bench's meter (`Meter.ts`) applies them to every request.
 */

/** A DynamoDB attribute value as it travels in JSON (`{ "S": "x" }`, `{ "N": "1" }`, `{ "M": { ... } }` ...). */
export type AttributeValue = Readonly<Record<string, unknown>>

/** An item or a key as it travels in JSON: attribute name to value. */
export type Item = Readonly<Record<string, AttributeValue>>

/** Read consistency, as a request asks for it. */
export type Consistency = "strong" | "eventual" | "transactional"

/** Request units, added up. */
export interface Units {
  readonly read: number
  readonly write: number
}

export const none: Units = { read: 0, write: 0 }

export const add = (a: Units, b: Units): Units => ({ read: a.read + b.read, write: a.write + b.write })

const utf8 = (text: string): number => Buffer.byteLength(text, "utf8")

/** One byte per two significant digits, rounded up, and one more (leading and trailing zeros do not count). */
export const numberSize = (text: string): number => {
  const digits = text.replace(/^[-+]/, "").replace(/[eE].*$/, "").replace(".", "").replace(/^0+/, "").replace(/0+$/, "")
  return Math.ceil(Math.max(1, digits.length) / 2) + 1
}

const binarySize = (base64: string): number => Buffer.from(base64, "base64").length

/** A value's size in bytes; a list or a map costs 3 bytes, and 1 more per element, beside its elements. */
export const valueSize = (value: AttributeValue): number => {
  // The SDK's own values carry their other members as undefined.
  const [type, content] = Object.entries(value).find(([, member]) => member !== undefined) ?? ["NULL", true]
  switch (type) {
    case "S":
      return utf8(String(content))
    case "N":
      return numberSize(String(content))
    case "B":
      return binarySize(String(content))
    case "BOOL":
    case "NULL":
      return 1
    case "SS":
      return (content as ReadonlyArray<string>).reduce((sum, s) => sum + utf8(s), 0)
    case "NS":
      return (content as ReadonlyArray<string>).reduce((sum, n) => sum + numberSize(n), 0)
    case "BS":
      return (content as ReadonlyArray<string>).reduce((sum, b) => sum + binarySize(b), 0)
    case "L": {
      const elements = content as ReadonlyArray<AttributeValue>
      return 3 + elements.reduce((sum, element) => sum + 1 + valueSize(element), 0)
    }
    case "M": {
      const entries = Object.entries(content as Item)
      return 3 + entries.reduce((sum, [name, element]) => sum + 1 + utf8(name) + valueSize(element), 0)
    }
    default:
      throw new Error(`unknown DynamoDB attribute type "${type}"`)
  }
}

/** An item's size in bytes: its attributes' names and values. */
export const itemSize = (item: Item): number =>
  Object.entries(item).reduce((sum, [name, value]) => sum + utf8(name) + valueSize(value), 0)

/** Write units of one write whose item is `bytes` long (the larger of before and after). */
export const writeUnits = (bytes: number): number => Math.max(1, Math.ceil(bytes / 1024))

const readFactor: Record<Consistency, number> = { strong: 1, eventual: 0.5, transactional: 2 }

/** Read units of one read of `bytes` (one item for GetItem, every item read added up for Query and Scan). */
export const readUnits = (bytes: number, consistency: Consistency): number =>
  Math.max(1, Math.ceil(bytes / 4096)) * readFactor[consistency]

/** How the tables' request-unit columns are counted, as a sentence for the text above them. */
export const method = "Write units and read units are what DynamoDB would charge for the same requests, by AWS's " +
  "rules (Amazon DynamoDB Developer Guide, \"DynamoDB read and write operations\", " +
  "https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html): a write costs one " +
  "write unit per started KB of its item, the larger of before and after, and a conditional write whose condition " +
  "fails costs as much; a strongly consistent read one read unit per started 4 KB, an eventually consistent one " +
  "half that; a Query the same per 4 KB of all it read. The meter in front of the server prices every contender's " +
  "requests alike: a read by its answer, a write by the largest size its item was seen at."
