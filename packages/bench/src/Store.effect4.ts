/**
 * The Effect 4 DynamoDB store as the bench's Leasehold rows use it: the root bench's table, and a client with no SDK
 * retries (the store retries on its own), as every contender of the root bench has.
 */
import * as DynamoLockStore from "@leasehold/dynamodb/DynamoLockStore"
import type * as LockStore from "@leasehold/lock/LockStore"
import type * as Layer from "effect/Layer"
import type { ClientConfig } from "./Protocol.js"

/** The table the root bench creates for Leasehold. */
export const tableName = "bench-leasehold"

export const layer = (config: ClientConfig): Layer.Layer<LockStore.LockStore, unknown> =>
  DynamoLockStore.layer({
    tableName,
    clientConfig: {
      endpoint: config.endpoint,
      region: config.region,
      credentials: config.credentials,
      maxAttempts: 1
    }
  })
