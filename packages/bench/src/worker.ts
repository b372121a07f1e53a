/**
 * A worker process for the contention and takeover tables. It waits for one IPC message:
 * - `{ config, options }`: runs `ContentionLoop.loop` with Leasehold on the DynamoDB store and sends back its waits;
 * - `{ config, hold }`: acquires `hold.key`, says `{ held: true }`, and holds it (heartbeating) until killed.
 */
import * as Lock from "@leasehold/lock/Lock"
import * as Effect from "effect/Effect"
import * as ContentionLoop from "./ContentionLoop.js"
import type { ClientConfig } from "./ServerProcess.js"

type Message =
  | { readonly config: ClientConfig; readonly options: ContentionLoop.LoopOptions }
  | { readonly config: ClientConfig; readonly hold: { readonly key: string; readonly options: Lock.LockOptions } }

process.once("message", (message: Message) => {
  const program = "hold" in message
    ? Lock.withLock(
      message.hold.key,
      Effect.zipRight(Effect.sync(() => process.send?.({ held: true })), Effect.never),
      message.hold.options
    )
    : ContentionLoop.loop(message.options)
  Effect.runPromise(program.pipe(Effect.provide(ContentionLoop.storeLayer(message.config)))).then(
    (waits) => process.send?.({ waits }, () => process.exit(0)),
    (error) => {
      console.error(error)
      process.exit(1)
    }
  )
})
process.send?.({ ready: true })
