import { describe, expect, it } from "vitest"
import * as SkewMonitor from "../../src/dynamodb/SkewMonitor.js"

const date = "Tue, 01 Jul 2025 12:00:00 GMT"
const server = Date.parse(date)

type Middleware = (next: (args: never) => Promise<unknown>, context: unknown) => (args: never) => Promise<unknown>

/** A command whose middleware stack keeps what is added to it, and runs it around a response with `headers`. */
const command = () => {
  const added: Array<{ readonly middleware: Middleware; readonly options: { readonly name: string } }> = []
  return {
    added,
    middlewareStack: {
      add: (middleware: Middleware, options: { readonly name: string }) => {
        added.push({ middleware, options })
      }
    },
    respond: (headers: unknown) =>
      added[0]!.middleware(() => Promise.resolve({ response: { headers } }), undefined)(undefined as never)
  }
}

describe("SkewMonitor.make", () => {
  it("keeps the latest estimate, not a response without a Date header", () => {
    const monitor = SkewMonitor.make(undefined)
    expect(monitor.current()).toBeUndefined()
    expect(monitor.offset).toBeUndefined()
    const estimate = monitor.observe(server + 5_000, server + 5_100, 7, date)
    expect(estimate).toMatchObject({ skewMs: 4_000, localAhead: true, receivedAtMonotonic: 7 })
    expect(monitor.current()).toBe(estimate)
    expect(monitor.observe(server, server + 1, 8, undefined)).toBeUndefined()
    expect(monitor.current()).toBe(estimate)
  })

  it("reads a simulated clock's distance from the system clock as the server's offset", () => {
    const hour = 3_600_000
    const monitor = SkewMonitor.make(() => Date.now() + hour)
    const offset = monitor.offset!()
    expect(offset).toBeGreaterThanOrEqual(hour - 50)
    expect(offset).toBeLessThanOrEqual(hour + 50)
  })
})

describe("SkewMonitor.probe", () => {
  it("feeds the monitor from each response, read on the request's clock", async () => {
    const monitor = SkewMonitor.make(undefined)
    const reads = [server + 100, server + 900]
    const probe = SkewMonitor.probe(monitor, { wallMillis: () => reads.shift()!, monotonicMillis: () => 42 })
    const sent = command()
    expect(probe(sent)).toBe(sent)
    expect(sent.added.map((entry) => entry.options.name)).toEqual(["leaseholdClockSkewProbe"])
    await sent.respond({ Date: date })
    expect(monitor.current()).toMatchObject({ skewMs: 0, receivedAt: server + 900, receivedAtMonotonic: 42 })
  })

  it("moves the server's time by the simulated clock's offset when the request was sent and answered", async () => {
    const offsets = [10_000, 10_000]
    const simulated: SkewMonitor.Monitor = { ...SkewMonitor.make(undefined), offset: () => offsets.shift()! }
    const seen: Array<unknown> = []
    const monitor: SkewMonitor.Monitor = {
      ...simulated,
      observe: (...args) => {
        seen.push(args[4])
        return simulated.observe(...args)
      }
    }
    const probe = SkewMonitor.probe(monitor, { wallMillis: () => server + 10_000, monotonicMillis: () => 0 })
    const sent = command()
    await probe(sent).respond({ date })
    expect(seen).toEqual([{ sent: 10_000, received: 10_000 }])
  })

  it("makes one probe per monitor and clock", () => {
    let made = 0
    const cached = SkewMonitor.probeCache((clock: { readonly at: number }) => {
      made++
      return { wallMillis: () => clock.at, monotonicMillis: () => clock.at }
    })
    const monitor = SkewMonitor.make(undefined)
    const clock = { at: 1 }
    expect(cached(monitor, clock)).toBe(cached(monitor, clock))
    expect(cached(monitor, { at: 2 })).not.toBe(cached(monitor, clock))
    expect(cached(SkewMonitor.make(undefined), clock)).not.toBe(cached(monitor, clock))
    expect(made).toBe(3)
    const untouched = command()
    expect(SkewMonitor.noProbe(untouched)).toBe(untouched)
    expect(untouched.added).toHaveLength(0)
  })
})
