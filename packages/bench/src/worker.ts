/**
 * A worker process for the contention and takeover tables, running one contender's driver (argv[2], a
 * `Drivers.Id`; loaded before the worker says it is ready). Each line has its own drivers (`effectLine.ts`): every
 * contender's on Effect 3, the lock's contention loop alone on Effect 4. It waits for one IPC message:
 * - `{ config, contend }`: runs the driver's contention loop and sends back `{ acquisitions, eventLoop }`;
 * - `{ config, hold }`: acquires `hold.key`, says `{ held: true }`, and holds it (heartbeating) until killed.
 */
import { monitorEventLoopDelay } from "node:perf_hooks"
import type * as ContentionDriver from "./ContentionDriver.js"
import * as EffectLine from "./effectLine.js"
import type { ClientConfig, Contend, ContentionRun, EventLoopDelay } from "./Protocol.js"

export type Message = Contend | { readonly config: ClientConfig; readonly hold: ContentionDriver.HoldOptions }

const driver = await EffectLine.loadDriver(process.argv[2] ?? "leasehold")

const fail = (error: unknown) => {
  console.error(error)
  process.exit(1)
}

process.once("message", (message: Message) => {
  if ("hold" in message) {
    driver.hold(message.config, message.hold, () => process.send?.({ held: true })).catch(fail)
    return
  }
  const histogram = message.eventLoop === true ? monitorEventLoopDelay({ resolution: 1 }) : undefined
  histogram?.enable()
  const cpu = process.cpuUsage()
  driver.contend(message.config, message.contend).then((acquisitions) => {
    histogram?.disable()
    const used = process.cpuUsage(cpu)
    const eventLoop: EventLoopDelay | undefined = histogram === undefined ? undefined : {
      p50: histogram.percentile(50) / 1e6,
      p99: histogram.percentile(99) / 1e6,
      max: histogram.max / 1e6,
      cpuMs: (used.user + used.system) / 1000
    }
    const run: ContentionRun = { acquisitions, eventLoop }
    process.send?.(run, () => process.exit(0))
  }, fail)
})
process.send?.({ ready: true })
