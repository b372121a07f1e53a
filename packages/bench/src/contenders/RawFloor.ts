/**
 * The floor: the AWS SDK alone, sending the very `UpdateItem`s Leasehold's DynamoDB store sends for an uncontended
 * acquire (conditional, fence incremented in the same write) and release (conditional on owner and fence), with
 * the same short placeholders: the floor sends requests of the same size.
 */
import { DynamoDBClient, UpdateItemCommand } from "@aws-sdk/client-dynamodb"
import { randomBytes } from "node:crypto"
import { clientConfig, type Contender, tables, timedLoop } from "../Contender.js"
import type { ClientConfig } from "../Protocol.js"

const leaseMs = 30_000
const maxClockSkewMs = 10_000
const ttlRetentionMs = 7 * 24 * 3600 * 1000
const ttlAt = (epochMs: number) => String(Math.ceil((epochMs + ttlRetentionMs) / 1000))

export const make = (config: ClientConfig): Contender => {
  const client = new DynamoDBClient(clientConfig(config))
  const names = {
    "#o": "owner",
    "#h": "holder",
    "#u": "leaseUntil",
    "#m": "leaseMs",
    "#a": "acquiredAt",
    "#t": "ttl",
    "#f": "fence",
    "#d": "data"
  }
  const { "#m": _leaseMs, ...releaseNames } = names
  const cycle = async (key: string) => {
    const owner = randomBytes(16).toString("hex")
    const now = Date.now()
    const acquired = await client.send(
      new UpdateItemCommand({
        TableName: tables.leasehold,
        Key: { key: { S: key } },
        UpdateExpression: "SET #o = :o, #h = :h, #u = :u, #m = :m, " +
          "#a = :n, #t = :t, #f = if_not_exists(#f, :n) + :i REMOVE #d",
        ConditionExpression: "attribute_not_exists(#o) OR #u < :c",
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: {
          ":o": { S: owner },
          ":h": { S: `pid ${process.pid}` },
          ":u": { N: String(now + leaseMs) },
          ":m": { N: String(leaseMs) },
          ":n": { N: String(now) },
          ":t": { N: ttlAt(now + leaseMs) },
          ":i": { N: "1" },
          ":c": { N: String(now - maxClockSkewMs) }
        },
        ReturnValues: "ALL_NEW",
        ReturnValuesOnConditionCheckFailure: "ALL_OLD"
      })
    )
    const fence = acquired.Attributes?.fence?.N
    if (fence === undefined) throw new Error("raw floor: acquire returned no fence")
    await client.send(
      new UpdateItemCommand({
        TableName: tables.leasehold,
        Key: { key: { S: key } },
        UpdateExpression: "SET #u = :z, #t = :t REMOVE #o, #h, #a, #d",
        ConditionExpression: "#o = :o AND #f = :f",
        ExpressionAttributeNames: releaseNames,
        ExpressionAttributeValues: {
          ":z": { N: "0" },
          ":t": { N: ttlAt(Date.now()) },
          ":o": { S: owner },
          ":f": { N: fence }
        },
        ReturnValuesOnConditionCheckFailure: "ALL_OLD"
      })
    )
  }
  return {
    name: "raw SDK floor",
    round: (key, durationMs) => timedLoop(durationMs, () => cycle(key)),
    close: async () => client.destroy()
  }
}
