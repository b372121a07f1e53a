/**
 * The door every contender's client goes through to the bench's server: an HTTP proxy in the server process that
 * counts the requests by DynamoDB operation (the `X-Amz-Target` suffix, e.g. "UpdateItem") and what they cost in
 * request units (`RequestUnits.ts`), the same way for Leasehold and for every peer, whatever client each uses.
 *
 * A read's units come from its own answer (the item or items it returned). A write's item is not always on the wire
 * (an UpdateItem that returns nothing), so a write is charged for the largest size its item was seen at: a PutItem's
 * item, an item a read or a write returned (returned values, the item of a failed condition), and, for an item seen in
 * none of these, the item as it stands when the units are asked for (read then, past the meter). A lock's item varies by
 * a few bytes between its states, far from a 1 KB step, so this is the unit count of each write.
 *
 * It replaces the test kit's counting proxy in front of the server, so a request still makes one hop.
 */
import { DescribeTableCommand, DynamoDBClient, GetItemCommand } from "@aws-sdk/client-dynamodb"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { forward, readBody, reply } from "./Forward.js"
import type { ClientConfig } from "./Protocol.js"
import * as RequestUnits from "./RequestUnits.js"

export interface Meter {
  readonly url: string
  /** Requests since the last reset, by operation; a request counts when it arrives. */
  readonly counts: () => Record<string, number>
  /** Request units of the requests answered since the last reset. */
  readonly units: () => Promise<RequestUnits.Units>
  readonly reset: () => void
  readonly close: () => Promise<void>
}

interface Body {
  readonly TableName?: string
  readonly Key?: RequestUnits.Item
  readonly Item?: RequestUnits.Item
  readonly Items?: ReadonlyArray<RequestUnits.Item>
  readonly Attributes?: RequestUnits.Item
  readonly ConsistentRead?: boolean
  readonly __type?: string
}

/** An item of a table, by its key (a `Key`) or whole (an `Item`, whose key attributes the table's schema names). */
interface ItemRef {
  readonly table: string
  readonly key?: RequestUnits.Item | undefined
  readonly item?: RequestUnits.Item | undefined
}

const writeOperations = new Set(["PutItem", "UpdateItem", "DeleteItem"])
const readOperations = new Set(["GetItem", "Query", "Scan"])
// Operations the meter does not price item by item: their units are shown as unknown rather than guessed.
const unpriced = new Set([
  "BatchGetItem",
  "BatchWriteItem",
  "TransactGetItems",
  "TransactWriteItems",
  "ExecuteStatement"
])

const parse = (body: Buffer): Body => {
  try {
    return JSON.parse(body.toString("utf8")) as Body
  } catch {
    return {}
  }
}

/** Starts the meter in front of `upstream`; `config` is how it reads the server itself (past the meter). */
export const start = (
  upstream: string,
  config: { readonly region: string; readonly credentials?: ClientConfig["credentials"] | undefined }
): Promise<Meter> => {
  const target = new URL(upstream)
  const agent = new Http.Agent({ keepAlive: true })
  const client = new DynamoDBClient({
    region: config.region,
    ...(config.credentials === undefined ? {} : { credentials: config.credentials }),
    endpoint: upstream,
    maxAttempts: 3
  })
  let counts = new Map<string, number>()
  let readUnits = 0
  let unknown = false
  let writes: Array<ItemRef> = []
  // Sightings of items' sizes, kept across resets: an item outlives a measurement.
  let sightings: Array<{ readonly ref: ItemRef; readonly size: number }> = []
  const largest = new Map<string, number>()
  const schemas = new Map<string, Promise<ReadonlyArray<string>>>()

  const keyNames = (table: string) => {
    let names = schemas.get(table)
    if (names === undefined) {
      names = client.send(new DescribeTableCommand({ TableName: table })).then((described) =>
        (described.Table?.KeySchema ?? []).map((element) => element.AttributeName!)
      )
      schemas.set(table, names)
    }
    return names
  }
  const keyOf = async (ref: ItemRef): Promise<RequestUnits.Item> => {
    if (ref.key !== undefined) return ref.key
    const names = await keyNames(ref.table)
    return Object.fromEntries(names.map((name) => [name, ref.item![name]!]))
  }
  const identity = async (ref: ItemRef): Promise<string> => {
    const key = await keyOf(ref)
    return `${ref.table}\u0000${JSON.stringify(Object.keys(key).sort().map((name) => [name, key[name]]))}`
  }

  const record = (operation: string, request: Body, status: number, answer: Body) => {
    const table = request.TableName ?? ""
    const ref: ItemRef = { table, key: request.Key, item: request.Item }
    const ok = status === 200
    const conditionFailed = answer.__type?.endsWith("ConditionalCheckFailedException") === true
    if (unpriced.has(operation)) unknown = true
    if (answer.Item !== undefined) sightings.push({ ref, size: RequestUnits.itemSize(answer.Item) })
    if (answer.Attributes !== undefined) sightings.push({ ref, size: RequestUnits.itemSize(answer.Attributes) })
    if (writeOperations.has(operation) && (ok || conditionFailed)) {
      writes.push(ref)
      if (ok && operation === "PutItem" && request.Item !== undefined) {
        sightings.push({ ref, size: RequestUnits.itemSize(request.Item) })
      }
    }
    if (readOperations.has(operation) && ok) {
      const consistency = request.ConsistentRead === true ? "strong" : "eventual"
      const bytes = operation === "GetItem"
        ? RequestUnits.itemSize(answer.Item ?? {})
        : (answer.Items ?? []).reduce((sum, item) => sum + RequestUnits.itemSize(item), 0)
      readUnits += RequestUnits.readUnits(bytes, consistency)
    }
  }

  const server = Http.createServer({ keepAlive: true }, (req, res) => {
    const amzTarget = String(req.headers["x-amz-target"] ?? "")
    const operation = amzTarget.slice(amzTarget.lastIndexOf(".") + 1)
    counts.set(operation, (counts.get(operation) ?? 0) + 1)
    readBody(req, (body) =>
      forward(target, agent, req, res, body, (answer) => {
        reply(res, answer)
        if (writeOperations.has(operation) || readOperations.has(operation) || unpriced.has(operation)) {
          record(operation, parse(body), answer.status, parse(answer.body))
        }
      }))
  })

  const units = async (): Promise<RequestUnits.Units> => {
    for (const { ref, size } of sightings) {
      const id = await identity(ref)
      largest.set(id, Math.max(size, largest.get(id) ?? 0))
    }
    sightings = []
    let writeUnits = 0
    for (const ref of writes) {
      const id = await identity(ref)
      let size = largest.get(id)
      if (size === undefined) {
        const current = await client.send(
          new GetItemCommand({ TableName: ref.table, Key: (await keyOf(ref)) as never, ConsistentRead: true })
        )
        size = current.Item === undefined ? 0 : RequestUnits.itemSize(current.Item as unknown as RequestUnits.Item)
        largest.set(id, size)
      }
      writeUnits += RequestUnits.writeUnits(size)
    }
    return unknown ? { read: Number.NaN, write: Number.NaN } : { read: readUnits, write: writeUnits }
  }

  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        counts: () => Object.fromEntries(counts),
        units,
        reset: () => {
          counts = new Map()
          readUnits = 0
          unknown = false
          writes = []
        },
        close: () =>
          new Promise<void>((done) => {
            client.destroy()
            agent.destroy()
            server.closeAllConnections()
            server.close(() => done())
          })
      }))
  })
}
