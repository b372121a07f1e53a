import { describe, layer } from "@effect/vitest"
import * as DynamoServer from "@leasehold/testing/DynamoServer"
import { inject } from "vitest"
import { tableItemsBehaviour } from "./tableItemsBehaviour.js"

// One DynamoDB Local for the whole run, started by test/globalSetup.ts; each file puts its own counting proxy in front.
const local = inject("dynamodbLocal")

describe.skipIf(!local.run)(
  local.run ? `DynamoDB Local (${local.engine})` : `DynamoDB Local: SKIPPED (${local.reason})`,
  () => {
    layer(DynamoServer.layerEndpoint(local.run ? local.endpoint : "http://127.0.0.1:1"))(
      "DynamoLockItems and the table's keys and TTL on DynamoDB Local",
      (it) => {
        // DynamoDB Local supports TTL: a table made without it is "disabled".
        tableItemsBehaviour(it, { returnsOldItems: true, ttl: "enabled" })
      }
    )
  }
)
