/**
 * The estimate of this process's clock against DynamoDB's, kept per store and fed by every response's `Date` header
 * (the arithmetic is `ClockSkew`'s), and the probe that feeds it from each request.
 *
 * A store built on a simulated clock (a test's) reads DynamoDB's `Date` moved by as far as that clock is from the
 * system clock at that moment, so that moving the simulated clock (time passing, for the whole test) is no skew, and a
 * clock set apart from it (a process with a skewed clock) is skewed by exactly that.
 *
 * @since 1.0.0
 */
import * as ClockSkew from "./ClockSkew.js"
import * as Retry from "./Retry.js"

/**
 * The latest estimate of one store. A mutable cell: it is written from the SDK's middleware, outside any fiber, and a
 * lost update between concurrent responses only means keeping one of two recent estimates.
 *
 * @since 1.0.0
 * @category models
 */
export interface Monitor {
  readonly current: () => ClockSkew.Estimate | undefined
  /**
   * How far the store's clock reads from the system clock now, for `observe`'s `offset`; `undefined` for a real
   * clock, whose requests read the server's `Date` as it is.
   */
  readonly offset: (() => number) | undefined
  readonly observe: (
    sentAt: number,
    receivedAt: number,
    receivedAtMonotonic: number,
    dateHeader: string | undefined,
    offset?: ClockSkew.ServerOffset
  ) => ClockSkew.Estimate | undefined
}

/**
 * A monitor for a store built on a real clock (`simulatedNow` undefined), or on a simulated one that reads
 * `simulatedNow()` ms since the epoch.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make = (simulatedNow: (() => number) | undefined): Monitor => {
  let latest: ClockSkew.Estimate | undefined
  return {
    current: () => latest,
    offset: simulatedNow === undefined ? undefined : () => simulatedNow() - Date.now(),
    observe: (sentAt, receivedAt, receivedAtMonotonic, dateHeader, offset) => {
      const estimate = ClockSkew.measure(sentAt, receivedAt, receivedAtMonotonic, dateHeader, offset)
      if (estimate !== undefined) latest = estimate
      return estimate
    }
  }
}

/**
 * How the probe reads the clock a request runs with: its wall time, and its monotonic time, both in ms.
 *
 * @since 1.0.0
 * @category models
 */
export interface ClockReads {
  readonly wallMillis: () => number
  readonly monotonicMillis: () => number
}

/**
 * A handler of the SDK's deserialize step, as the probe sees it: it passes the arguments on untouched, and reads
 * only the raw HTTP response of the result (see `DeserializeResult`).
 */
type Handler = (args: never) => Promise<unknown>

/** What the probe reads of a deserialize step's result: the raw response, when the step produced one. */
interface DeserializeResult {
  readonly response?: { readonly headers?: unknown } | undefined
}

/**
 * The structural part of an SDK command the probe touches: its own middleware stack, which the SDK merges with the
 * client's on send. Adding to it never changes the client, which may be the user's.
 *
 * @since 1.0.0
 * @category models
 */
export interface Probeable {
  readonly middlewareStack: {
    add(
      middleware: (next: Handler, context: unknown) => Handler,
      options: { readonly step: "deserialize"; readonly name: string; readonly priority: "low" }
    ): void
  }
}

/**
 * What a request does to its command before sending it: add the probe, or nothing.
 *
 * @since 1.0.0
 * @category models
 */
export type Probe = <C extends Probeable>(command: C) => C

/**
 * The probe of a store without the guard: it leaves the command as it is.
 *
 * @since 1.0.0
 * @category probes
 */
export const noProbe: Probe = (command) => command

const probeOptions = { step: "deserialize", name: "leaseholdClockSkewProbe", priority: "low" } as const

/**
 * The probe that feeds `monitor` from every attempt of a command, read on `clock`.
 *
 * @since 1.0.0
 * @category probes
 */
export const probe = (monitor: Monitor, clock: ClockReads): Probe => {
  const offset = monitor.offset
  // Low priority in the deserialize step puts this next to the HTTP handler, inside the SDK's deserializer: it sees
  // the raw response of every attempt, including the ones the deserializer turns into errors.
  const middleware = (next: Handler) => async (args: never) => {
    const sentAt = clock.wallMillis()
    const sentOffset = offset === undefined ? 0 : offset()
    const result = await next(args)
    monitor.observe(
      sentAt,
      clock.wallMillis(),
      clock.monotonicMillis(),
      Retry.headerOf((result as DeserializeResult | undefined)?.response?.headers, "date"),
      offset === undefined ? undefined : { sent: sentOffset, received: offset() }
    )
    return result
  }
  return <C extends Probeable>(command: C): C => {
    command.middlewareStack.add(middleware, probeOptions)
    return command
  }
}

/**
 * The probe of a monitor for a clock, made once per pair: every request of a fiber that keeps its clock (nearly all
 * of them) reuses it instead of building its closures again. `readsOf` says how a shell reads its clocks.
 *
 * @since 1.0.0
 * @category probes
 */
export const probeCache = <Clock extends object>(readsOf: (clock: Clock) => ClockReads) => {
  const probes = new WeakMap<Monitor, WeakMap<Clock, Probe>>()
  return (monitor: Monitor, clock: Clock): Probe => {
    let byClock = probes.get(monitor)
    if (byClock === undefined) {
      byClock = new WeakMap()
      probes.set(monitor, byClock)
    }
    let made = byClock.get(clock)
    if (made === undefined) {
      made = probe(monitor, readsOf(clock))
      byClock.set(clock, made)
    }
    return made
  }
}
