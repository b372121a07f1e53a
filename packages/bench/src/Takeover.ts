/**
 * Takeover after SIGKILL: a worker process holds a lock (heartbeating), is killed, and the bench process, asking for
 * the lock right after the kill, takes it over. Measured from the kill to entering the section, for each contender in
 * each takeover mode it documents, against the bound that mode promises.
 */
import { fork } from "node:child_process"
import { fileURLToPath } from "node:url"
import type * as ContentionDriver from "./ContentionDriver.js"
import * as Drivers from "./Drivers.js"
import type { ServerProcess } from "./ServerProcess.js"
import { fixed, median, spread, table } from "./Stats.js"
import type { Message } from "./worker.js"

export interface Trial {
  readonly takeoverMs: number
  readonly calls: number
}

export interface Result {
  readonly contender: string
  readonly mode: ContentionDriver.TakeoverMode
  readonly leaseMs: number
  readonly trials: ReadonlyArray<Trial>
}

const trial = async (
  server: ServerProcess,
  id: Drivers.Id,
  driver: ContentionDriver.Driver,
  hold: ContentionDriver.HoldOptions
): Promise<Trial> => {
  const child = fork(fileURLToPath(new URL("./worker.ts", import.meta.url)), [id], {
    execArgv: ["--conditions=@leasehold/source", "--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"]
  })
  const died = new Promise<never>((_, reject) =>
    child.once("exit", (code) => reject(new Error(`takeover worker (${id}) exited with code ${code} before holding`)))
  )
  await Promise.race([new Promise<void>((resolve) => child.once("message", () => resolve())), died])
  const held = Promise.race([new Promise<void>((resolve) => child.once("message", () => resolve())), died])
  const message: Message = { config: server.clientConfig, hold }
  child.send(message)
  await held
  // Kill between two heartbeats, after at least one renew.
  await new Promise((resolve) => setTimeout(resolve, hold.leaseMs * (0.5 + Math.random() * 0.2)))
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  await server.reset()
  child.kill("SIGKILL")
  const killedAt = performance.now()
  await exited
  let takeoverMs = Number.NaN
  await driver.takeOver(server.clientConfig, hold, () => {
    takeoverMs = performance.now() - killedAt
  })
  const counts = await server.requests()
  return { takeoverMs, calls: Object.values(counts).reduce((a, b) => a + b, 0) }
}

/** `trials` trials of every takeover mode of each contender (`firstModeOnly`: its first mode), one after the other. */
export const run = async (
  server: ServerProcess,
  ids: ReadonlyArray<Drivers.Id>,
  trials: number,
  leaseMs: number,
  firstModeOnly = false
): Promise<Array<Result>> => {
  const results: Array<Result> = []
  for (const id of ids) {
    const driver = await Drivers.load(id)
    for (const mode of firstModeOnly ? driver.takeoverModes.slice(0, 1) : driver.takeoverModes) {
      const done: Array<Trial> = []
      for (let i = 0; i < trials; i++) {
        const key = `takeover-${id}-${mode.name}-${Date.now()}-${i}`
        done.push(await trial(server, id, driver, { key, mode: mode.name, leaseMs }))
      }
      results.push({ contender: driver.name, mode, leaseMs, trials: done })
    }
  }
  return results
}

export const render = (results: ReadonlyArray<Result>): string =>
  table(
    [
      "contender, takeover mode",
      "lease ms",
      "bound: at most ms",
      "kill → takeover ms",
      "store calls while waiting"
    ],
    results.map((r) => [
      `${r.contender}, ${r.mode.name} (${r.mode.settings})`,
      fixed(r.leaseMs, 0),
      fixed(r.mode.boundMs(r.leaseMs), 0),
      spread(r.trials.map((t) => t.takeoverMs), 0),
      fixed(median(r.trials.map((t) => t.calls)), 0)
    ])
  )
