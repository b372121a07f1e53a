/**
 * The Effect 4 line's worker process for the root bench's contention table, speaking the Effect 3 line's worker
 * protocol: it says `{ ready }`, waits for one `Contend` message, runs the Effect 4 lock's contention loop on the
 * DynamoDB store and sends back `{ acquisitions, eventLoop }`. Only the lock (argv[2] `leasehold`) has a row.
 */
import * as Effect from "effect/Effect"
import { monitorEventLoopDelay } from "node:perf_hooks"
import * as ContentionLoop from "./ContentionLoop.js"
import type { Contend, ContentionRun, EventLoopDelay } from "./Protocol.js"
import * as Store from "./Store.js"

const id = process.argv[2] ?? "leasehold"
if (id !== "leasehold") throw new Error(`the Effect 4 line has no contention driver ${id}`)

const fail = (error: unknown) => {
  console.error(error)
  process.exit(1)
}

process.once("message", (message: Contend) => {
  if (!("contend" in message)) return fail(new Error("the Effect 4 line's worker only runs contention loops"))
  const histogram = message.eventLoop === true ? monitorEventLoopDelay({ resolution: 1 }) : undefined
  histogram?.enable()
  const cpu = process.cpuUsage()
  Effect.runPromise(ContentionLoop.loop(message.contend).pipe(Effect.provide(Store.layer(message.config)))).then(
    (acquisitions) => {
      histogram?.disable()
      const used = process.cpuUsage(cpu)
      const eventLoop: EventLoopDelay | undefined = histogram === undefined ? undefined : {
        p50: histogram.percentile(50) / 1e6,
        p99: histogram.percentile(99) / 1e6,
        max: histogram.max / 1e6,
        cpuMs: (used.user + used.system) / 1000
      }
      process.send?.({ acquisitions, eventLoop } satisfies ContentionRun, () => process.exit(0))
    },
    fail
  )
})
process.send?.({ ready: true })
