import { layer } from "@effect/vitest"
import * as DynamoServer from "@leasehold/testing/DynamoServer"
import { semaphoreLeaseBehaviour } from "./semaphoreLeases.js"
import { semaphoreModuleBehaviour } from "./semaphoreModule.js"

// dynalite ignores ReturnValuesOnConditionCheckFailure: a conflict reads the record with one GetItem.
layer(DynamoServer.layerDynalite)("Semaphore on dynalite", (it) => {
  const engine = { returnsOldItems: false, ttl: "unsupported" } as const
  semaphoreModuleBehaviour(it, engine)
  semaphoreLeaseBehaviour(it, engine)
})
