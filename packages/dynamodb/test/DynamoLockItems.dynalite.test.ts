import { layer } from "@effect/vitest"
import * as DynamoServer from "@leasehold/testing/DynamoServer"
import { tableItemsBehaviour } from "./tableItemsBehaviour.js"

// dynalite describes every table's TTL as DISABLED and has no UpdateTimeToLive.
layer(DynamoServer.layerDynalite)("DynamoLockItems and the table's keys and TTL on dynalite", (it) => {
  tableItemsBehaviour(it, { returnsOldItems: false, ttl: "unsupported" })
})
