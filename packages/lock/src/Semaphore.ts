/**
 * Distributed semaphores: at most `limit` permits of a name held at once across all processes. Permits are leased as
 * a lock is, with the same guarantees: a heartbeat keeps them, a loss interrupts the code that relies on them, a
 * dead holder's permits are taken over once its lease is over (at `leaseUntil` + `maxClockSkew`, or in observed mode
 * after a full lease without a renew), and they are given back when their scope closes. Each acquisition gets a fence
 * that strictly increases per name.
 *
 * A store keeps one record per semaphore, so every acquisition is one conditional write when there is room: one
 * write to acquire and one to release, plus a renew per heartbeat. The record is separate from any lock's, even of
 * the same name.
 *
 * What it does not do: permits are not re-entrant (a fiber that holds some and asks again makes a second
 * acquisition, which may wait for itself), not queued in the process (every waiting fiber polls the store), and
 * served in no particular order (no reservations, unlike a lock). A semaphore has at most `SemaphoreRecord.maxLimit`
 * permits.
 *
 * @example
 * ```ts
 * import { LockStore, Semaphore } from "@leasehold/lock"
 * import { Effect } from "effect"
 *
 * // At most 4 calls to the partner API at once, across every replica.
 * const callPartner = (id: number) =>
 *   Effect.log(`calling the partner API for ${id}`).pipe(
 *     Semaphore.withPermits("partner-api", { limit: 4, wait: "1 minute" })
 *   )
 *
 * Effect.runPromise(
 *   Effect.forEach([1, 2, 3, 4, 5, 6], callPartner, { concurrency: "unbounded" }).pipe(
 *     Effect.provide(LockStore.layerMemory)
 *   )
 * )
 * ```
 *
 * @since 1.0.0
 */
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as internal from "./internal/semaphore/semaphore.js"
import type { LockOptions } from "./Lock.js"
import type { LockConfigError, LockLost, LockNotAcquired, LockStoreError, SemaphoreLimitMismatch } from "./LockError.js"
import type { LockStore } from "./LockStore.js"
import type { Permits } from "./Permits.js"
import type { SemaphoreRecord } from "./SemaphoreRecord.js"

/**
 * Options of one acquisition of permits: the semaphore's `limit`, how many `permits` to take, and the lease options of
 * a lock (defaults from `Lock.LockDefaults` as for a lock). `data` is at most `SemaphoreRecord.maxDataBytes`: one
 * record keeps every holder's. What is checked is the value an acquisition will use, the call's or the app-wide
 * default's: data over that budget, or a lease the store can not keep (`LockStore.semaphoreLeaseProblem`), is a
 * `LockConfigError` before any store call either way.
 *
 * @since 1.0.0
 * @category models
 */
export interface SemaphoreOptions extends LockOptions {
  /**
   * How many permits of the name may be held at once, from 1 to `SemaphoreRecord.maxLimit`. Every process must use
   * the same: an acquisition that asks with another limit than the record's fails with `SemaphoreLimitMismatch`.
   */
  readonly limit: number
  /** How many of them this acquisition takes, from 1 to `limit`. Default: 1. */
  readonly permits?: number | undefined
}

/**
 * Acquires permits of the semaphore `name` as a scoped resource: held until the scope closes, kept alive by a
 * heartbeat fiber. If they are lost, the fiber that acquired them (or, as for `Lock.acquire`, the fiber that took
 * its result over) is interrupted; `permits.status` and `permits.lost` say why.
 *
 * With no room, it waits as a lock does (`wait`, default zero), polling the record; holders whose leases are over are
 * removed in the acquiring write. Creating the record and removing such holders take an attempt each, made at once
 * even with no `wait`.
 *
 * Fails with `LockConfigError` before any store call (a bad name, limit, permits or option), with `LockNotAcquired`
 * (its `permits` field says how full the semaphore was) when `wait` runs out, with `SemaphoreLimitMismatch` when the
 * record has another limit, and with `LockStoreError` when the store fails.
 *
 * @example
 * ```ts
 * import { LockStore, Semaphore } from "@leasehold/lock"
 * import { Console, Effect } from "effect"
 *
 * const program = Effect.gen(function*() {
 *   const first = yield* Semaphore.acquire("shard-workers", { limit: 3, permits: 2 })
 *   const second = yield* Semaphore.acquire("shard-workers", { limit: 3 })
 *   yield* Console.log(first.permits + second.permits, second.fence > first.fence)
 *   // Output: 3 true
 * }).pipe(Effect.scoped)
 *
 * Effect.runPromise(program.pipe(Effect.provide(LockStore.layerMemory)))
 * ```
 *
 * @since 1.0.0
 * @category constructors
 */
export const acquire: (
  name: string,
  options: SemaphoreOptions
) => Effect.Effect<
  Permits,
  LockNotAcquired | SemaphoreLimitMismatch | LockStoreError | LockConfigError,
  LockStore | Scope.Scope
> = internal.acquire

/**
 * Runs a section while holding permits of the semaphore `name`, and gives them back as soon as the section ends. If
 * they are lost, the section is interrupted and the result is a `LockLost` failure. Does not require `Scope`. Fails as
 * `acquire` does.
 *
 * The section is a program, or a function of the held `Permits` that makes it: `withPermits(name, (permits) =>
 * program, options)` hands the section what it holds (`fence` for its downstream writes, `permits`, `limit`, status),
 * called once the permits are held, in the section's fiber. Pipeable, with a program: `program.pipe(withPermits(name,
 * options))`.
 *
 * @example
 * ```ts
 * import { LockStore, Semaphore } from "@leasehold/lock"
 * import { Effect } from "effect"
 *
 * const resize = (image: string) => Effect.log(`resizing ${image}`)
 *
 * // Pipeable: this replica waits up to 30 seconds for one of 8 slots.
 * const one = resize("a.png").pipe(Semaphore.withPermits("resizers", { limit: 8, wait: "30 seconds" }))
 *
 * // Data-first, taking 4 of the 8 slots for a large image.
 * const large = Semaphore.withPermits("resizers", resize("huge.tiff"), { limit: 8, permits: 4, wait: "30 seconds" })
 *
 * // A function of the permits: their fence goes with the section's writes.
 * const fenced = Semaphore.withPermits(
 *   "resizers",
 *   (permits) => Effect.log(`storing thumbnails with fence ${permits.fence}`),
 *   { limit: 8, wait: "30 seconds" }
 * )
 *
 * Effect.runPromise(Effect.all([one, large, fenced]).pipe(Effect.provide(LockStore.layerMemory)))
 * ```
 *
 * @since 1.0.0
 * @category combinators
 */
export const withPermits: {
  (name: string, options: SemaphoreOptions): <A, E, R>(
    self: Effect.Effect<A, E, R>
  ) => Effect.Effect<
    A,
    E | LockNotAcquired | LockLost | SemaphoreLimitMismatch | LockStoreError | LockConfigError,
    R | LockStore
  >
  <A, E, R>(
    name: string,
    section: (permits: Permits) => Effect.Effect<A, E, R>,
    options: SemaphoreOptions
  ): Effect.Effect<
    A,
    E | LockNotAcquired | LockLost | SemaphoreLimitMismatch | LockStoreError | LockConfigError,
    R | LockStore
  >
  <A, E, R>(
    name: string,
    self: Effect.Effect<A, E, R>,
    options: SemaphoreOptions
  ): Effect.Effect<
    A,
    E | LockNotAcquired | LockLost | SemaphoreLimitMismatch | LockStoreError | LockConfigError,
    R | LockStore
  >
} = internal.withPermits

/**
 * The semaphore's record, in one read: its limit, the permits in use, and each holder with its fence, lease and data
 * (holders whose leases are over included, until an acquisition removes them). `None` if it was never acquired.
 *
 * @since 1.0.0
 * @category getters
 */
export const inspect: (
  name: string
) => Effect.Effect<Option.Option<SemaphoreRecord>, LockStoreError | LockConfigError, LockStore> = internal.inspect
