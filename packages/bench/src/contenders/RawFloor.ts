/**
 * The floor: the AWS SDK alone, sending the very `UpdateItem`s Leasehold's DynamoDB store sends for an uncontended
 * acquire (conditional, fence incremented in the same write) and release (conditional on owner and fence).
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
    "#owner": "owner",
    "#holder": "holder",
    "#leaseUntil": "leaseUntil",
    "#leaseMs": "leaseMs",
    "#acquiredAt": "acquiredAt",
    "#ttl": "ttl",
    "#fence": "fence",
    "#data": "data"
  }
  const { "#leaseMs": _leaseMs, ...releaseNames } = names
  const cycle = async (key: string) => {
    const owner = randomBytes(16).toString("hex")
    const now = Date.now()
    const acquired = await client.send(
      new UpdateItemCommand({
        TableName: tables.leasehold,
        Key: { key: { S: key } },
        UpdateExpression: "SET #owner = :owner, #holder = :holder, #leaseUntil = :leaseUntil, #leaseMs = :leaseMs, " +
          "#acquiredAt = :now, #ttl = :ttl, #fence = if_not_exists(#fence, :now) + :one REMOVE #data",
        ConditionExpression: "attribute_not_exists(#owner) OR #leaseUntil < :cutoff",
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: {
          ":owner": { S: owner },
          ":holder": { S: `pid ${process.pid}` },
          ":leaseUntil": { N: String(now + leaseMs) },
          ":leaseMs": { N: String(leaseMs) },
          ":now": { N: String(now) },
          ":ttl": { N: ttlAt(now + leaseMs) },
          ":one": { N: "1" },
          ":cutoff": { N: String(now - maxClockSkewMs) }
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
        UpdateExpression: "SET #leaseUntil = :zero, #ttl = :ttl REMOVE #owner, #holder, #acquiredAt, #data",
        ConditionExpression: "#owner = :owner AND #fence = :fence",
        ExpressionAttributeNames: releaseNames,
        ExpressionAttributeValues: {
          ":zero": { N: "0" },
          ":ttl": { N: ttlAt(Date.now()) },
          ":owner": { S: owner },
          ":fence": { N: fence }
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
