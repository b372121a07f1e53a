import { describe, layer } from "@effect/vitest"
import * as DynamoServer from "@leasehold/testing/DynamoServer"
import { inject } from "vitest"
import { storeBehaviour } from "./behaviour.js"
import { dataBehaviour } from "./dataBehaviour.js"
import { semaphoreBehaviour } from "./semaphoreBehaviour.js"

// One DynamoDB Local for the whole run, started by test/globalSetup.ts; each file puts its own counting proxy in front.
const local = inject("dynamodbLocal")

describe.skipIf(!local.run)(
  local.run ? `DynamoDB Local (${local.engine})` : `DynamoDB Local: SKIPPED (${local.reason})`,
  () => {
    layer(DynamoServer.layerEndpoint(local.run ? local.endpoint : "http://127.0.0.1:1"))(
      "DynamoLockStore on DynamoDB Local",
      (it) => {
        // DynamoDB Local returns the old item on a failed condition (no read needed) and supports TTL.
        storeBehaviour(it, { returnsOldItems: true, ttl: "enabled" })
        dataBehaviour(it, { returnsOldItems: true, ttl: "enabled" })
        semaphoreBehaviour(it, { returnsOldItems: true, ttl: "enabled" })
      }
    )
  }
)
