import { describe, layer } from "@effect/vitest"
import * as DynamoServer from "@leasehold/testing/DynamoServer"
import { inject } from "vitest"
import { semaphoreLeaseBehaviour } from "./semaphoreLeases.js"
import { semaphoreModuleBehaviour } from "./semaphoreModule.js"

// One DynamoDB Local for the whole run, started by test/globalSetup.ts; each file puts its own counting proxy in front.
const local = inject("dynamodbLocal")

describe.skipIf(!local.run)(
  local.run ? `DynamoDB Local (${local.engine})` : `DynamoDB Local: SKIPPED (${local.reason})`,
  () => {
    layer(DynamoServer.layerEndpoint(local.run ? local.endpoint : "http://127.0.0.1:1"))(
      "Semaphore on DynamoDB Local",
      (it) => {
        // DynamoDB Local returns the old item on a failed condition: a conflict needs no read.
        const engine = { returnsOldItems: true, ttl: "enabled" } as const
        semaphoreModuleBehaviour(it, engine)
        semaphoreLeaseBehaviour(it, engine)
      }
    )
  }
)
