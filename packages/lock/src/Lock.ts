/**
 * Distributed locks as scoped Effect resources.
 *
 * ```ts
 * Effect.scoped(Lock.withLock("nightly-report", program))
 * program.pipe(Lock.withLock("nightly-report", { wait: "30 seconds" }))
 *
 * Effect.gen(function*() {
 *   const lease = yield* Lock.acquire("orders/42", { wait: "30 seconds" })
 *   yield* writeSomewhere({ fence: lease.fence })
 * }).pipe(Effect.scoped)
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
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import * as Acquire from "./internal/acquire.js"
import { monotonicMillis } from "./internal/clock.js"
import * as Keeper from "./internal/keeper.js"
import * as LocalQueue from "./internal/localQueue.js"
import * as Metrics from "./internal/metrics.js"
import * as Options from "./internal/options.js"
import { type LockConfigError, type LockLost, LockNotAcquired, type LockStoreError } from "./LockError.js"
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
 * Reads app-wide defaults from `Config`: `LEASEHOLD_LEASE`, `LEASEHOLD_HEARTBEAT`, `LEASEHOLD_WAIT` (a duration or
 * "forever"), `LEASEHOLD_MAX_CLOCK_SKEW`, `LEASEHOLD_WARN_AT`, `LEASEHOLD_SAFETY_MARGIN`, `LEASEHOLD_POLL_INTERVAL`,
 * `LEASEHOLD_TAKEOVER` ("absolute" | "observed"), `LEASEHOLD_HOLDER`. Unset keys keep the built-in defaults.
 *
 * @since 0.1.0
 * @category layers
 */
export const defaultsConfig: Config.Config<LockOptions> = Config.all({
  lease: Config.option(Config.duration("LEASEHOLD_LEASE")),
  heartbeat: Config.option(Config.duration("LEASEHOLD_HEARTBEAT")),
  wait: Config.option(
    Config.orElse(Config.literal("forever")("LEASEHOLD_WAIT"), () => Config.duration("LEASEHOLD_WAIT"))
  ),
  maxClockSkew: Config.option(Config.duration("LEASEHOLD_MAX_CLOCK_SKEW")),
  warnAt: Config.option(Config.duration("LEASEHOLD_WARN_AT")),
  safetyMargin: Config.option(Config.duration("LEASEHOLD_SAFETY_MARGIN")),
  pollInterval: Config.option(Config.duration("LEASEHOLD_POLL_INTERVAL")),
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
 * App-wide defaults from `defaultsConfig`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerDefaultsConfig: Layer.Layer<LockDefaults, ConfigError.ConfigError> = Layer.unwrapEffect(
  Effect.map(defaultsConfig, layerDefaults)
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

/** A lease a fiber holds, visible to the fibers it forks, so that nested use of the same name re-enters. */
interface HeldEntry {
  readonly queues: LocalQueue.LocalQueues
  readonly name: string
  readonly lease: Lease
}

const heldByFiber = FiberRef.unsafeMake<ReadonlyArray<HeldEntry>>([])

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

/**
 * What happens to the fiber that owns the critical section when the lease is lost.
 */
type OnLost = (error: LockLost) => Effect.Effect<void>

/** Interrupts `fiber` without waiting for it: its own scope closing runs our release. */
const interruptOnLoss = (fiber: Fiber.RuntimeFiber<unknown, unknown> | undefined): OnLost => () =>
  fiber === undefined ? Effect.void : Effect.flatMap(Effect.fiberId, (id) => Fiber.interruptAsFork(fiber, id))

/** A held lock and how to give it back; `reentered` when the caller already held it (the outer one releases). */
interface Acquisition extends Keeper.Keeper {
  readonly reentered: boolean
}

/**
 * Acquires `name` and starts keeping it. Must run uninterruptibly, with `restore` the caller's mask: it waits
 * interruptibly, and once it succeeds the caller must run `release` exactly once.
 */
const acquireKept = (
  name: string,
  options: LockOptions | undefined,
  restore: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>,
  onLost: OnLost
): Effect.Effect<Acquisition, LockNotAcquired | LockStoreError | LockConfigError | LockLost, LockStore> =>
  Effect.gen(function*() {
    const store = yield* LockStore
    const validName = yield* Options.validateName(name, store.maxNameBytes)
    const resolved = yield* Options.resolve(yield* LockDefaults, options, defaultHolder)

    const held = yield* FiberRef.get(heldByFiber)
    if (held.length > 0) {
      const outer = held.find((entry) => entry.queues === store.local && entry.name === validName)
      if (outer !== undefined) {
        // Re-entry: the outer acquisition keeps governing the lease and releases it.
        const status = yield* outer.lease.status
        if (status._tag === "Lost") return yield* status.error
        if (status._tag !== "Released") return { lease: outer.lease, release: Effect.void, reentered: true }
      }
    }

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
    const keeper = yield* Keeper.start({
      store,
      record: acquired.record,
      options: resolved,
      sentAt: acquired.sentAt,
      onLost
    })

    const now = yield* monotonicMillis
    yield* Metric.increment(Metrics.acquisitions)
    yield* Metric.update(Metrics.waitTime, now - startedAt)
    yield* Effect.annotateCurrentSpan({ "lock.fence": keeper.lease.fence })
    return { ...keeper, reentered: false }
  }).pipe(Effect.withSpan("Lock.acquire", { attributes: { "lock.name": name }, captureStackTrace: false }))

const markHeld = (store: LockStore["Type"], lease: Lease) => (entries: ReadonlyArray<HeldEntry>) => [
  ...entries,
  { queues: store.local, name: lease.name, lease }
]

/**
 * Acquires a lock as a scoped resource: held until the scope closes, kept alive by a heartbeat fiber. If the lease is
 * lost, the fiber that acquired it is interrupted (its scope then closes); `lease.status` and `lease.lost` say why.
 * Use `withLock` to get a `LockLost` failure instead.
 *
 * Acquiring a name the current fiber (or a fiber it forked) already holds re-enters: the same lease is returned, no
 * store call is made, and the outer acquisition still releases it.
 *
 * @since 0.1.0
 * @category constructors
 */
export const acquire = (
  name: string,
  options?: LockOptions
): Effect.Effect<Lease, LockNotAcquired | LockStoreError | LockConfigError | LockLost, LockStore | Scope.Scope> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.gen(function*() {
      const acquirer = Option.getOrUndefined(Fiber.getCurrentFiber())
      const acquisition = yield* acquireKept(name, options, restore, interruptOnLoss(acquirer))
      if (acquisition.reentered) return acquisition.lease
      yield* Effect.addFinalizer(() => acquisition.release)
      const store = yield* LockStore
      yield* Effect.locallyScopedWith(heldByFiber, markHeld(store, acquisition.lease))
      return acquisition.lease
    })
  )

/**
 * Runs `self` while holding the lock `name`, and releases it as soon as `self` ends. If the lease is lost, `self` is
 * interrupted and the result is a `LockLost` failure. Does not require `Scope`.
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

/**
 * The section runs in a fiber of its own, which the loss of the lease interrupts: a fiber can not be un-interrupted,
 * so only a child's interruption can be turned into a `LockLost` failure of this effect.
 */
const withLockDataFirst = <A, E, R>(
  name: string,
  self: Effect.Effect<A, E, R>,
  options: LockOptions | undefined
): Effect.Effect<A, E | LockNotAcquired | LockLost | LockStoreError | LockConfigError, R | LockStore> =>
  Effect.uninterruptibleMask((restore) => {
    let section: Fiber.RuntimeFiber<A, E> | undefined
    const onLost: OnLost = (error) => interruptOnLoss(section)(error)
    return Effect.flatMap(acquireKept(name, options, restore, onLost), (acquisition) => {
      if (acquisition.reentered) return restore(self)
      const { lease, release } = acquisition
      return Effect.gen(function*() {
        const store = yield* LockStore
        section = yield* Effect.fork(restore(Effect.locallyWith(self, heldByFiber, markHeld(store, lease))))
        // Lost before the section existed to be interrupted: stop it before it does anything.
        if (!(yield* lease.isHeld)) yield* Fiber.interruptFork(section)
        const running = section
        const exit = yield* restore(Fiber.await(running)).pipe(Effect.onInterrupt(() => Fiber.interrupt(running)))
        if (Exit.isFailure(exit) && Cause.isInterruptedOnly(exit.cause)) {
          const status = yield* lease.status
          if (status._tag === "Lost") return yield* status.error
        }
        return yield* exit
      }).pipe(Effect.ensuring(release))
    })
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
