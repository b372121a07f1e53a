/**
 * `npm run trace`: one traced Leasehold contention run (4 worker processes, one key, 5 ms hold, 300 ms lease, 8 s, as
 * table 2), each worker behind its own recording proxy, and the reading of it (ContentionTrace). The extra hop makes
 * this run a little slower than table 2's; it is for finding where waits go, not for the table.
 * `--workers n`, `--ms n` and `--long ms` change the run; `--delay ms` puts table 7's delaying proxy between the
 * recording proxies and the server (times are then as the workers see them: a request reaches the server `delay` later);
 * `--poll ms` and `--yield ms` are the experiments of `ContentionDriver.LoopOptions`.
 */
import { readFileSync } from "node:fs"
import * as os from "node:os"
import { createTables } from "./Contender.js"
import * as Contention from "./Contention.js"
import * as ContentionTrace from "./ContentionTrace.js"
import * as DelayProxy from "./DelayProxy.js"
import * as ServerProcess from "./ServerProcess.js"
import * as TraceProxy from "./TraceProxy.js"

const args = process.argv.slice(2)
const value = (name: string, fallback: number): number => {
  const index = args.indexOf(`--${name}`)
  return index === -1 ? fallback : Number(args[index + 1])
}
const workers = value("workers", 4)
const durationMs = value("ms", 8_000)
const optional = (name: string) => (args.includes(`--${name}`) ? value(name, 0) : undefined)

/** Busy and total jiffies of all cores, from /proc/stat (Linux). */
const cpuTimes = (): { busy: number; total: number } => {
  try {
    const fields = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number)
    const total = fields.reduce((a, b) => a + b, 0)
    return { busy: total - fields[3]! - (fields[4] ?? 0), total }
  } catch {
    return { busy: Number.NaN, total: Number.NaN }
  }
}

const main = async () => {
  const server = await ServerProcess.start("dynalite")
  try {
    await createTables(server.clientConfig)
    const delayMs = optional("delay")
    const delay = delayMs === undefined ? undefined : await DelayProxy.spawn(server.clientConfig.endpoint, delayMs)
    const proxies = await TraceProxy.start(delay?.endpoint ?? server.clientConfig.endpoint, workers)
    const before = cpuTimes()
    const run = await Contention.runWorkers(server, "leasehold", workers, {
      holdMs: 5,
      leaseMs: 300,
      durationMs,
      pollIntervalMs: optional("poll"),
      yieldMs: optional("yield")
    }, {
      configFor: (i) => ({ ...server.clientConfig, endpoint: proxies.endpoints[i]! }),
      eventLoop: true
    })
    const after = cpuTimes()
    await proxies.close()
    await delay?.close()
    process.stdout.write(
      ContentionTrace.render({
        acquisitions: run.workers.map((w) => w.acquisitions),
        eventLoop: run.workers.map((w) => w.eventLoop),
        requests: proxies.requests(),
        seconds: run.seconds,
        machineBusy: (after.busy - before.busy) / (after.total - before.total),
        cores: os.cpus().length,
        longMs: value("long", 300)
      }) + "\n"
    )
  } finally {
    await server.stop()
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error)
    process.exit(1)
  }
)
