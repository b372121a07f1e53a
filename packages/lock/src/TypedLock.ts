/**
 * Locks whose data is a typed value: an Effect Schema says what a holder stores with the lock, and the lock is
 * acquired, updated and inspected with values of the schema's type instead of strings.
 *
 * What is stored is JSON, in the record's `data`: on Effect 3 the JSON of the schema's encoded form
 * (`Schema.parseJson(schema)`), on Effect 4 that of its JSON codec
 * (`Schema.fromJsonString(Schema.toCodecJson(schema))`). Any schema works, and anyone reading the record (another
 * program, the CLI's `inspect`) sees readable JSON. A value that does not encode fails with `LockDataError` before any
 * store call; data that does not decode (stored by another program, or by a version with another schema) fails with
 * `LockDataError` where it is read.
 *
 * @example
 * ```ts
 * import { LockStore, TypedLock } from "@leasehold/lock"
 * import { Console, Effect, Option, Schema } from "effect"
 *
 * // What the holder of an import lock says about itself.
 * const Imports = TypedLock.make(Schema.Struct({ file: Schema.String, rowsDone: Schema.Number }))
 *
 * const program = Effect.gen(function*() {
 *   yield* Imports.withLock("imports/2024-06", { file: "june.csv", rowsDone: 0 }, (lease) =>
 *     Effect.gen(function*() {
 *       // ... import the first 5000 rows ...
 *       yield* lease.update({ ...lease.data, rowsDone: 5000 })
 *       // Anyone can see how far it got, in one read.
 *       const holder = yield* Imports.holder("imports/2024-06")
 *       const rows = Option.flatMap(holder, (h) => h.data).pipe(Option.map((data) => data.rowsDone))
 *       yield* Console.log(Option.getOrThrow(rows))
 *       // Output: 5000
 *     }))
 * })
 *
 * Effect.runPromise(program.pipe(Effect.provide(LockStore.layerMemory)))
 * ```
 *
 * @since 1.0.0
 */
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import type * as EffectLine from "./internal/effectLine.js"
import type { Codec, Services } from "./internal/effectLine.js"
import * as internal from "./internal/typed/typedLock.js"
import type { Lease, LeaseStatus } from "./Lease.js"
import type { LockOptions } from "./Lock.js"
import type { LockConfigError, LockDataError, LockLost, LockNotAcquired, LockStoreError } from "./LockError.js"
import type { LockRecord } from "./LockRecord.js"
import type { LockStore } from "./LockStore.js"

/**
 * The options of a typed acquisition: those of `Lock.acquire`, but for `data`, which is the typed value.
 *
 * @since 1.0.0
 * @category models
 */
export type TypedLockOptions = Omit<LockOptions, "data">

/**
 * A held typed lock: the lease's fields, its data as a value of the schema's type, and `update`. `R` is what the
 * schema's encoding needs (`never` for most schemas).
 *
 * @since 1.0.0
 * @category models
 */
export interface TypedLease<A, R = never> {
  readonly name: string
  /** Random per acquisition. */
  readonly owner: string
  readonly holder: string
  /** The fencing token: pass it to downstream systems so they can reject writes from an older holder. */
  readonly fence: number
  /**
   * The data stored with the lock: the value acquired with, then that of the latest successful `update` through this
   * handle. A re-entered lease (see `Lock.acquire`) holds the outer acquisition's data, decoded.
   */
  readonly data: A
  /** The current status. */
  readonly status: Effect.Effect<LeaseStatus>
  /** The current status, then every change. */
  readonly changes: Stream.Stream<LeaseStatus>
  /** Whether the lease is held (possibly at risk). */
  readonly isHeld: Effect.Effect<boolean>
  /** Waits until the lease is lost, and fails with the reason. Never completes if it is released first. */
  readonly lost: Effect.Effect<never, LockLost>
  /** The untyped lease: its record, and its data as stored. */
  readonly lease: Lease
  /**
   * Stores `data` with the lock, and extends the lease, in one conditional write: encodes it (a value that does not
   * encode is a `LockDataError`, before any store call), then `Lease.updateData`. See there for the guarantee and
   * the other errors.
   */
  update(data: A): Effect.Effect<void, LockDataError | LockLost | LockStoreError | LockConfigError, R>
}

/**
 * The current holder of a typed lock, as `holder` reads it. The lease may have run out without anyone taking the
 * lock yet: compare `leaseUntil` (epoch ms, on the holder's clock) with the time.
 *
 * @since 1.0.0
 * @category models
 */
export interface Holder<A> {
  readonly name: string
  /** The holder's readable name. */
  readonly holder: string
  readonly owner: string
  readonly fence: number
  /** Epoch ms: the holder's clock when its last acquire, renew or update started, plus the lease. */
  readonly leaseUntil: number
  /** Epoch ms when the holder acquired the lock. */
  readonly acquiredAt: number
  /** The holder's data, decoded; `None` if it stored none. */
  readonly data: Option.Option<A>
  /** The record as the store keeps it. */
  readonly record: LockRecord
}

/**
 * The section of a typed `withLock`: a program, or a function of the typed lease that makes it.
 *
 * @since 1.0.0
 * @category models
 */
export type Section<A, R, X, E, R2> = Effect.Effect<X, E, R2> | ((lease: TypedLease<A, R>) => Effect.Effect<X, E, R2>)

/**
 * The program a section stands for: the section itself, or what the function of the lease returns.
 *
 * @since 1.0.0
 * @category models
 */
export type SectionEffect<S> = S extends Effect.Effect<infer X, infer E, infer R> ? Effect.Effect<X, E, R>
  : S extends (lease: never) => Effect.Effect<infer X, infer E, infer R> ? Effect.Effect<X, E, R>
  : never

/**
 * What a typed `withLock` returns for the section `S`: its result, its errors and the lock's, its requirements and
 * the lock's.
 *
 * @since 1.0.0
 * @category models
 */
export type WithLock<S, R> = Effect.Effect<
  EffectLine.Success<SectionEffect<S>>,
  | EffectLine.Error<SectionEffect<S>>
  | LockNotAcquired
  | LockLost
  | LockStoreError
  | LockConfigError
  | LockDataError,
  Services<SectionEffect<S>> | R | LockStore
>

/**
 * Locks whose data is a value of `schema`'s type: `acquire`, `withLock` and `holder` as `Lock` has them, with typed
 * data. `R` is what the schema's encoding and decoding need (`never` for most schemas).
 *
 * @since 1.0.0
 * @category models
 */
export interface TypedLock<A, I = A, R = never> {
  readonly schema: Codec<A, I, R>
  /**
   * `Lock.acquire` with `data` stored with the lock: held until the scope closes. The value is encoded first (a
   * `LockDataError` before any store call); then the acquisition is `Lock.acquire`'s, errors, re-entry and all. A
   * re-entered lease writes nothing: its data is the outer acquisition's, decoded.
   */
  readonly acquire: (
    name: string,
    data: A,
    options?: TypedLockOptions
  ) => Effect.Effect<
    TypedLease<A, R>,
    LockNotAcquired | LockStoreError | LockConfigError | LockDataError,
    LockStore | Scope.Scope | R
  >
  /**
   * `Lock.withLock` with `data` stored with the lock. The section is a program, or a function of the typed lease (to
   * read its fence, or `update` its data). Data-first: `withLock(name, data, section, options?)`; pipeable:
   * `section.pipe(withLock(name, data, options?))`.
   */
  readonly withLock: {
    // As `Lock.withLock`'s: tried first, and the options also name a function of the typed lease that returns no
    // program, so that a section's parameter is typed at this first try (an `Effect.fn(function*(lease) {...})` would
    // keep `any` otherwise).
    (
      name: string,
      data: A,
      options?: TypedLockOptions | ((lease: TypedLease<A, R>) => never)
    ): <S extends Section<A, R, unknown, unknown, unknown>>(
      section: S
    ) => WithLock<S, R>
    <S extends Section<A, R, unknown, unknown, unknown>>(
      name: string,
      data: A,
      section: S,
      options?: TypedLockOptions
    ): WithLock<S, R>
  }
  /**
   * Who holds the lock `name`, with its data decoded, from one store read (`LockStore.inspect`): `None` if nobody
   * does. Fails with `LockDataError` if the holder's data does not decode with this schema, and with
   * `LockConfigError` for a name the store can not key, before the read.
   */
  readonly holder: (
    name: string
  ) => Effect.Effect<Option.Option<Holder<A>>, LockStoreError | LockConfigError | LockDataError, LockStore | R>
}

/**
 * Locks whose data is a value of `schema`'s type. Make one per kind of lock (per schema), once, and use it for every
 * name of that kind.
 *
 * @example
 * ```ts
 * import { LockStore, TypedLock } from "@leasehold/lock"
 * import { Console, Effect, Schema } from "effect"
 *
 * const Jobs = TypedLock.make(Schema.Struct({ jobId: Schema.String, step: Schema.Number }))
 *
 * const program = Effect.gen(function*() {
 *   const lease = yield* Jobs.acquire("jobs/nightly", { jobId: "n-42", step: 1 }, { wait: "10 seconds" })
 *   // ... step 1 ...
 *   yield* lease.update({ jobId: "n-42", step: 2 })
 *   // Pass the fence to downstream writes, as with any lease.
 *   yield* Console.log(lease.data, lease.fence > 0)
 *   // Output: { jobId: 'n-42', step: 2 } true
 * }).pipe(Effect.scoped)
 *
 * // Schemas of values that are not JSON work too: what is stored is the JSON of their encoded form (of the
 * // schema's JSON codec on Effect 4).
 * const Deadlines = TypedLock.make(Schema.Struct({ until: Schema.Date }))
 * const deadline = Deadlines.withLock("reports/deadline", { until: new Date(0) }, (lease) =>
 *   Console.log(lease.lease.data)) // {"until":"1970-01-01T00:00:00.000Z"}
 *
 * Effect.runPromise(Effect.andThen(program, deadline).pipe(Effect.provide(LockStore.layerMemory)))
 * ```
 *
 * @since 1.0.0
 * @category constructors
 */
export const make: <A, I, R>(schema: Codec<A, I, R>) => TypedLock<A, I, R> = internal.make
