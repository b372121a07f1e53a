import { layer } from "@effect/vitest"
import * as DynamoServer from "@leasehold/testing/DynamoServer"
import { storeBehaviour } from "./behaviour.js"
import { dataBehaviour } from "./dataBehaviour.js"
import { semaphoreBehaviour } from "./semaphoreBehaviour.js"

// dynalite ignores ReturnValuesOnConditionCheckFailure (conflicts read the holder with one GetItem) and has no
// UpdateTimeToLive.
layer(DynamoServer.layerDynalite)("DynamoLockStore on dynalite", (it) => {
  storeBehaviour(it, { returnsOldItems: false, ttl: "unsupported" })
  dataBehaviour(it, { returnsOldItems: false, ttl: "unsupported" })
  semaphoreBehaviour(it, { returnsOldItems: false, ttl: "unsupported" })
})
