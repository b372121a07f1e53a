/**
 * Distributed locks as scoped Effect resources: `withLock` runs a section while holding a lock, `acquire` holds one
 * until the scope closes. Both need a `LockStore` (`LockStore.layerMemory` in one process, the DynamoDB store across
 * processes).
 *
 * @example
 * ```ts
 * import { Lock, LockStore } from "@leasehold/lock"
 * import { Effect } from "effect"
 *
 * const sendReport = Effect.log("sending the nightly report")
 * const writeOrder = (order: { readonly id: string; readonly fence: number }) =>
 *   Effect.log(`order ${order.id} written with fence ${order.fence}`)
 *
 * // A section: the lock is released as soon as it ends.
 * const nightly = sendReport.pipe(Lock.withLock("nightly-report", { wait: "30 seconds" }))
 *
 * // A scoped resource: held until the scope closes, with a fencing token for downstream writes.
 * const order = Effect.gen(function*() {
 *   const lease = yield* Lock.acquire("orders/42", { wait: "30 seconds" })
 *   yield* writeOrder({ id: "42", fence: lease.fence })
 * }).pipe(Effect.scoped)
 *
 * Effect.runPromise(Effect.all([nightly, order]).pipe(Effect.provide(LockStore.layerMemory)))
 * ```
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import * as Acquire from "./internal/acquire.js"
import { monotonicMillis } from "./internal/clock.js"
import * as HeldLeases from "./internal/heldLeases.js"
import * as Keeper from "./internal/keeper.js"
import * as LeaseUsers from "./internal/leaseUsers.js"
import * as LocalQueue from "./internal/localQueue.js"
import * as Metrics from "./internal/metrics.js"
import * as Options from "./internal/options.js"
import { type LockConfigError, LockLost, LockNotAcquired, type LockStoreError } from "./LockError.js"
import type { LockRecord } from "./LockRecord.js"
import { LockStore } from "./LockStore.js"

/**
 * Options of one acquisition. Every field is optional; defaults come from `LockDefaults` (set app-wide with
 * `layerDefaults` or `layerDefaultsConfig`), then from the named constants below.
 *
 * @since 0.1.0
 * @category models
 */
export interface LockOptions {
  /** How long a lease lasts without a renew. Default: 30 seconds. */
  readonly lease?: Duration.DurationInput | undefined
  /** How often the holder renews. Default: lease / 3. Must leave room: heartbeat < lease - safetyMargin. */
  readonly heartbeat?: Duration.DurationInput | undefined
  /** How long to wait for a held lock, or "forever". Default: zero, a single attempt. */
  readonly wait?: Duration.DurationInput | "forever" | undefined
  /** The bound on clock differences between hosts (absolute takeover). Default: 10 seconds. */
  readonly maxClockSkew?: Duration.DurationInput | undefined
  /** Report "at risk" once less than this is left before the local deadline. Default: lease / 3. */
  readonly warnAt?: Duration.DurationInput | undefined
  /** The critical section is interrupted this long before the lease ends. Default: lease / 10. */
  readonly safetyMargin?: Duration.DurationInput | undefined
  /** The longest a waiter sleeps between attempts (jittered). Default: lease / 10, at most 1 second. */
  readonly pollInterval?: Duration.DurationInput | undefined
  /**
   * How a dead holder's lock is taken over. "absolute" (default): at leaseUntil + maxClockSkew, trusting clocks
   * within the bound. "observed": only after watching the lease stay unrenewed for a full lease on the local
   * monotonic clock, trusting no wall clock.
   */
  readonly takeover?: "absolute" | "observed" | undefined
  /** A readable name for this process, shown to other holders and operators. Default: "pid <pid>". */
  readonly holder?: string | undefined
  /** A payload stored with the lock while held (already encoded, e.g. with Schema). */
  readonly data?: string | undefined
}

/**
 * App-wide defaults for every acquisition in its context; per-call options override them field by field.
 *
 * @since 0.1.0
 * @category tags
 */
export class LockDefaults extends Context.Reference<LockDefaults>()("@leasehold/lock/LockDefaults", {
  defaultValue: (): LockOptions => ({})
}) {}

/**
 * Sets app-wide defaults.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerDefaults = (options: LockOptions): Layer.Layer<LockDefaults> => Layer.succeed(LockDefaults, options)

/**
 * A duration from `Config`, kept as written: Effect's own `Config.duration` turns "-10 seconds" into zero, and the
 * options check must see the sign to refuse it.
 */
const durationConfig = (key: string): Config.Config<Option.Option<Duration.DurationInput>> =>
  Config.option(Config.map(Config.string(key), (value) => value.trim() as Duration.DurationInput))

/**
 * Reads app-wide defaults from `Config`: `LEASEHOLD_LEASE`, `LEASEHOLD_HEARTBEAT`, `LEASEHOLD_WAIT` (a duration or
 * "forever"), `LEASEHOLD_MAX_CLOCK_SKEW`, `LEASEHOLD_WARN_AT`, `LEASEHOLD_SAFETY_MARGIN`, `LEASEHOLD_POLL_INTERVAL`,
 * `LEASEHOLD_TAKEOVER` ("absolute" | "observed"), `LEASEHOLD_HOLDER`. Durations are written as Effect writes them
 * ("30 seconds", "500 millis"). Unset keys keep the built-in defaults; values are checked where they are used.
 *
 * @since 0.1.0
 * @category layers
 */
export const defaultsConfig: Config.Config<LockOptions> = Config.all({
  lease: durationConfig("LEASEHOLD_LEASE"),
  heartbeat: durationConfig("LEASEHOLD_HEARTBEAT"),
  wait: Config.option(
    Config.orElse(
      Config.literal("forever")("LEASEHOLD_WAIT"),
      () => Config.map(Config.string("LEASEHOLD_WAIT"), (value) => value.trim() as Duration.DurationInput)
    )
  ),
  maxClockSkew: durationConfig("LEASEHOLD_MAX_CLOCK_SKEW"),
  warnAt: durationConfig("LEASEHOLD_WARN_AT"),
  safetyMargin: durationConfig("LEASEHOLD_SAFETY_MARGIN"),
  pollInterval: durationConfig("LEASEHOLD_POLL_INTERVAL"),
  takeover: Config.option(Config.literal("absolute", "observed")("LEASEHOLD_TAKEOVER")),
  holder: Config.option(Config.string("LEASEHOLD_HOLDER"))
}).pipe(
  Config.map((values): LockOptions => {
    const options: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(values) as Array<[string, Option.Option<unknown>]>) {
      if (Option.isSome(value)) options[key] = value.value
    }
    return options as LockOptions
  })
)

/**
 * App-wide defaults from `defaultsConfig`. A value that is not a valid duration (negative, NaN, over the timer limit)
 * fails the layer with `LockConfigError`, at startup rather than at the first lock.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerDefaultsConfig: Layer.Layer<LockDefaults, ConfigError.ConfigError | LockConfigError> = Layer
  .unwrapEffect(
    Effect.flatMap(defaultsConfig, (options) => Effect.as(Options.checkValues(options), layerDefaults(options)))
  )

/**
 * Where a held lock stands. `AtRisk` goes back to `Held` after a successful renew; `Lost` and `Released` are final.
 *
 * @since 0.1.0
 * @category models
 */
export type LeaseStatus =
  | { readonly _tag: "Held" }
  | { readonly _tag: "AtRisk"; readonly remainingMs: number }
  | { readonly _tag: "Lost"; readonly error: LockLost }
  | { readonly _tag: "Released" }

/**
 * A held lock.
 *
 * @since 0.1.0
 * @category models
 */
export interface Lease {
  readonly name: string
  /** Random per acquisition. */
  readonly owner: string
  readonly holder: string
  /** The fencing token: pass it to downstream systems so they can reject writes from an older holder. */
  readonly fence: number
  readonly data: string | undefined
  /** The record as the acquiring write left it. */
  readonly record: LockRecord
  /** The current status. */
  readonly status: Effect.Effect<LeaseStatus>
  /** The current status, then every change. */
  readonly changes: Stream.Stream<LeaseStatus>
  /** Whether the lease is held (possibly at risk). */
  readonly isHeld: Effect.Effect<boolean>
  /** Waits until the lease is lost, and fails with the reason. Never completes if it is released first. */
  readonly lost: Effect.Effect<never, LockLost>
}

const defaultHolder: string = typeof globalThis.process?.pid === "number"
  ? `pid ${globalThis.process.pid}`
  : "leasehold"

/**
 * 128 random bits: owners must be unique across processes, so they come from the platform's CSPRNG. Bytes are drawn
 * in batches, since one `getRandomValues` call costs far more than slicing 16 bytes out of a buffer.
 */
const randomOwner = (() => {
  const pool = new Uint8Array(4096)
  let offset = pool.length
  const hex = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"))
  return (): string => {
    if (offset + 16 > pool.length) {
      globalThis.crypto.getRandomValues(pool)
      offset = 0
    }
    const digits = new Array<string>(16)
    for (let i = 0; i < 16; i++) digits[i] = hex[pool[offset + i]!]!
    offset += 16
    // One flat string: `+=` would keep sixteen rope pieces alive for as long as the lock is held.
    return digits.join("")
  }
})()

/** A lock this call acquired (and must release), or the live lease of an outer acquisition it re-entered. */
type Acquisition =
  | { readonly _tag: "Acquired"; readonly keeper: Keeper.Keeper; readonly entry: HeldLeases.Entry }
  | { readonly _tag: "Reentered"; readonly entry: HeldLeases.Entry }

/**
 * Acquires `name` and starts keeping it, with `holder` (if given) as the first fiber to interrupt on loss. Must run
 * uninterruptibly, with `restore` the caller's mask: it waits interruptibly, and once it succeeds with `Acquired` the
 * caller must run `keeper.release` exactly once.
 */
const acquireKept = (
  name: string,
  options: LockOptions | undefined,
  restore: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>,
  holder: Fiber.RuntimeFiber<unknown, unknown> | undefined
): Effect.Effect<Acquisition, LockNotAcquired | LockStoreError | LockConfigError, LockStore> =>
  Effect.gen(function*() {
    const store = yield* LockStore
    const validName = yield* Options.validateName(name, store.maxNameBytes)
    const resolved = yield* Options.resolve(yield* LockDefaults, options, defaultHolder)

    // Re-entry: the outer acquisition keeps governing the lease and releases it.
    const outer = yield* HeldLeases.live(store.local, validName)
    if (outer !== undefined) return { _tag: "Reentered", entry: outer } as const

    const startedAt = yield* monotonicMillis
    const owner = randomOwner()
    yield* Effect.annotateCurrentSpan({ "lock.name": validName, "lock.owner": owner })

    const localWait = resolved.waitMs === undefined ? undefined : Duration.millis(resolved.waitMs)
    const isHead = yield* restore(LocalQueue.enter(store.local, validName, localWait))
    if (!isHead) {
      const now = yield* monotonicMillis
      const holding = yield* LocalQueue.holding(store.local, validName)
      yield* Metric.increment(Metrics.notAcquired)
      return yield* new LockNotAcquired({
        name: validName,
        holder: Option.getOrUndefined(holding),
        waitedMs: now - startedAt
      })
    }
    const acquired = yield* restore(
      Acquire.acquireLoop({ store, name: validName, owner, options: resolved, startedAt })
    ).pipe(Effect.onError(() => LocalQueue.leave(store.local, validName)))
    // From here to the caller's release nothing can be interrupted, so a held lock always gets its release.
    yield* LocalQueue.setHolding(store.local, validName, acquired.record)
    const users = LeaseUsers.make()
    if (holder !== undefined) users.holders.add(holder)
    const keeper = yield* Keeper.start({
      store,
      record: acquired.record,
      options: resolved,
      sentAt: acquired.sentAt,
      users
    })

    const now = yield* monotonicMillis
    yield* Metric.increment(Metrics.acquisitions)
    yield* Metric.update(Metrics.waitTime, now - startedAt)
    yield* Effect.annotateCurrentSpan({ "lock.fence": keeper.lease.fence })
    const entry: HeldLeases.Entry = {
      store: store.local,
      name: validName,
      users,
      isLive: keeper.isLive,
      lease: keeper.lease
    }
    return { _tag: "Acquired", keeper, entry } as const
  }).pipe(Effect.withSpan("Lock.acquire", { attributes: { "lock.name": name }, captureStackTrace: false }))

const currentFiber = Effect.withFiberRuntime<Fiber.RuntimeFiber<unknown, unknown>>((fiber) => Effect.succeed(fiber))

/**
 * Acquires a lock as a scoped resource: held until the scope closes, kept alive by a heartbeat fiber.
 *
 * If the lease is lost, the code that relies on it is interrupted: the fiber that acquired it and, when that fiber
 * ended while the scope stays open (`Effect.timeout`, `Effect.race` or a concurrent `Effect.all` around the acquire,
 * a layer built from it), the fiber that took its result over. Their scope then closes. `lease.status` and
 * `lease.lost` say why; use `withLock` to get a `LockLost` failure instead.
 *
 * Acquiring a name that the current fiber is already inside a live lease of (its own, or one held by the fiber it
 * was forked from) re-enters: the same lease is returned, no store call is made, and the outer acquisition still
 * releases it. The re-entering fiber is then interrupted when that lease ends, by loss or by release, if its own
 * scope is still open.
 *
 * @example
 * ```ts
 * import { Lock, LockStore } from "@leasehold/lock"
 * import { Console, Effect } from "effect"
 *
 * // A downstream write that refuses fences lower than the last one it accepted.
 * const saveInvoice = (invoice: { readonly orderId: string; readonly fence: number }) =>
 *   Effect.log(`invoice for order ${invoice.orderId}, fence ${invoice.fence}`)
 *
 * const program = Effect.gen(function*() {
 *   const lease = yield* Lock.acquire("orders/42", { wait: "10 seconds", holder: "billing-worker-1" })
 *   yield* saveInvoice({ orderId: "42", fence: lease.fence })
 *   yield* Console.log(lease.holder, yield* lease.isHeld)
 *   // Output: billing-worker-1 true
 * }).pipe(
 *   // The lock is released when the scope closes.
 *   Effect.scoped
 * )
 *
 * Effect.runPromise(program.pipe(Effect.provide(LockStore.layerMemory)))
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const acquire = (
  name: string,
  options?: LockOptions
): Effect.Effect<Lease, LockNotAcquired | LockStoreError | LockConfigError, LockStore | Scope.Scope> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.gen(function*() {
      const self = yield* currentFiber
      const acquisition = yield* acquireKept(name, options, restore, self)
      const { entry } = acquisition
      if (acquisition._tag === "Reentered") {
        entry.users.borrowers.add(self)
        yield* Effect.addFinalizer(() => Effect.sync(() => entry.users.borrowers.delete(self)))
        return entry.lease as Lease
      }
      yield* Effect.addFinalizer(() => acquisition.keeper.release)
      yield* HeldLeases.enterScoped(entry)
      return acquisition.keeper.lease
    })
  )

/**
 * Runs `self` while holding the lock `name`, and releases it as soon as `self` ends. If the lease is lost, `self` is
 * interrupted and the result is a `LockLost` failure. Does not require `Scope`.
 *
 * Inside a live lease of the same name (see `acquire`), it re-enters; the section then ends with that lease, and if
 * the outer acquisition releases it first, the result is a `LockLost` with reason "released".
 *
 * @example
 * ```ts
 * import { Lock, LockStore } from "@leasehold/lock"
 * import { Effect } from "effect"
 *
 * const rotateKeys = Effect.log("rotating the signing keys")
 *
 * const program = rotateKeys.pipe(
 *   // One instance at a time; `wait` is zero by default, so a held lock fails at once.
 *   Lock.withLock("key-rotation"),
 *   // Another instance is rotating: skip this run.
 *   Effect.catchTag("LockNotAcquired", (error) => Effect.log(`skipped: ${error.message}`))
 * )
 *
 * // The same, data-first, waiting up to a minute for the lock.
 * const patient = Lock.withLock("key-rotation", rotateKeys, { wait: "1 minute" })
 *
 * Effect.runPromise(Effect.zipRight(program, patient).pipe(Effect.provide(LockStore.layerMemory)))
 * ```
 *
 * @since 0.1.0
 * @category combinators
 */
export const withLock: {
  (name: string, options?: LockOptions): <A, E, R>(
    self: Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E | LockNotAcquired | LockLost | LockStoreError | LockConfigError, R | LockStore>
  <A, E, R>(
    name: string,
    self: Effect.Effect<A, E, R>,
    options?: LockOptions
  ): Effect.Effect<A, E | LockNotAcquired | LockLost | LockStoreError | LockConfigError, R | LockStore>
} = (...args: Array<any>): any => {
  // Data-first when the second argument is the program: withLock(name, self, options?).
  if (Effect.isEffect(args[1])) return withLockDataFirst(args[0], args[1], args[2])
  const [name, options] = args as [string, LockOptions | undefined]
  return <A, E, R>(self: Effect.Effect<A, E, R>) => withLockDataFirst(name, self, options)
}

const withLockDataFirst = <A, E, R>(
  name: string,
  self: Effect.Effect<A, E, R>,
  options: LockOptions | undefined
): Effect.Effect<A, E | LockNotAcquired | LockLost | LockStoreError | LockConfigError, R | LockStore> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.flatMap(acquireKept(name, options, restore, undefined), (acquisition) => {
      if (acquisition._tag === "Reentered") return runSection(acquisition.entry, restore(self), "borrower", restore)
      const { entry, keeper } = acquisition
      return runSection(entry, restore(HeldLeases.enter(entry)(self)), "holder", restore).pipe(
        Effect.ensuring(keeper.release)
      )
    })
  )

/**
 * Runs a section in a fiber of its own, which the end of the lease interrupts: a fiber can not be un-interrupted, so
 * only a child's interruption can be turned into a `LockLost` failure of this effect. A holder's section is stopped
 * by a loss; a borrower's (a re-entered section) also by the outer acquisition's release.
 */
const runSection = <A, E, R>(
  entry: HeldLeases.Entry,
  section: Effect.Effect<A, E, R>,
  role: "holder" | "borrower",
  restore: <X, Y, Z>(effect: Effect.Effect<X, Y, Z>) => Effect.Effect<X, Y, Z>
): Effect.Effect<A, E | LockLost, R> =>
  Effect.gen(function*() {
    const lease = entry.lease as Lease
    const fibers = role === "holder" ? entry.users.holders : entry.users.borrowers
    const fiber = yield* Effect.fork(section)
    fibers.add(fiber)
    // Ended before the section existed to be interrupted: stop it before it does anything.
    if (!entry.isLive()) yield* Fiber.interruptFork(fiber)
    const exit = yield* restore(Fiber.await(fiber)).pipe(Effect.onInterrupt(() => Fiber.interrupt(fiber)))
    // The release stops borrowers by taking them out of the set before the lease's status says "Released".
    const cutOff = !fibers.has(fiber)
    fibers.delete(fiber)
    if (Exit.isFailure(exit) && Cause.isInterruptedOnly(exit.cause)) {
      const status = yield* lease.status
      if (status._tag === "Lost") return yield* status.error
      if (role === "borrower" && (cutOff || status._tag === "Released")) {
        return yield* new LockLost({
          name: lease.name,
          owner: lease.owner,
          fence: lease.fence,
          reason: "released",
          by: undefined
        })
      }
    }
    return yield* exit
  })

/**
 * Fails with `LockConfigError` if `options` are invalid, without acquiring anything. Useful at startup.
 *
 * @since 0.1.0
 * @category validation
 */
export const validateOptions = (options: LockOptions): Effect.Effect<void, LockConfigError> =>
  Effect.asVoid(Options.resolve({}, options, defaultHolder))

/**
 * The built-in defaults, for documentation and tools.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaults = {
  lease: Options.defaultLease,
  heartbeatsPerLease: Options.heartbeatsPerLease,
  maxClockSkew: Options.defaultMaxClockSkew,
  warnAtFraction: Options.warnAtFraction,
  safetyMarginFraction: Options.safetyMarginFraction,
  maxPollInterval: Options.maxPollInterval
} as const
