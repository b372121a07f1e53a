// A user's first lock, as the packages' READMEs write it, from the packed tarballs installed in a fresh app. Its
// section prints when it runs and ends the process: what a new Lambda instance waits for before its first lock is held.
import { DynamoLockStore } from "@leasehold/dynamodb"
import { Lock } from "@leasehold/lock"
import { Effect } from "effect"

// The static imports above are evaluated before this line runs.
const imported = performance.now()

const LockLive = DynamoLockStore.layer({
  tableName: process.env.COLD_START_TABLE,
  clientConfig: {
    endpoint: process.env.COLD_START_ENDPOINT,
    region: "us-east-1",
    credentials: { accessKeyId: "cold-start", secretAccessKey: "cold-start" }
  }
})

const held = Effect.sync(() => {
  const done = performance.now()
  process.stdout.write(JSON.stringify({ imported, done }) + "\n")
  // Each run takes a name no other run takes, so the lock left held costs the next run nothing.
  process.exit(0)
})

Effect.runPromise(Lock.withLock(process.env.COLD_START_NAME, held).pipe(Effect.provide(LockLive)))
