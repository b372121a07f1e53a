/**
 * A contention worker process: waits for `{ config, options }` over IPC, runs `ContentionLoop.loop` with Leasehold on
 * the DynamoDB store, and sends back its waits.
 */
import * as Effect from "effect/Effect"
import * as ContentionLoop from "./ContentionLoop.js"
import type { ClientConfig } from "./ServerProcess.js"

process.once("message", (message: { config: ClientConfig; options: ContentionLoop.LoopOptions }) => {
  Effect.runPromise(
    ContentionLoop.loop(message.options).pipe(Effect.provide(ContentionLoop.storeLayer(message.config)))
  ).then(
    (waits) => process.send?.({ waits }, () => process.exit(0)),
    (error) => {
      console.error(error)
      process.exit(1)
    }
  )
})
process.send?.({ ready: true })
