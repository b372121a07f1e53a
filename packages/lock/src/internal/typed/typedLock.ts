/**
 * `TypedLock`: a lock's data as a value of an Effect Schema, stored as JSON (`EffectLine.jsonCodec`). Encoding happens
 * before any store call; decoding where data is read (a re-entered lease, `holder`).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import type { Lease, LeaseStatus } from "../../Lease.js"
import type { LockOptions } from "../../Lock.js"
import {
  type LockConfigError,
  LockDataError,
  type LockLost,
  type LockNotAcquired,
  type LockStoreError
} from "../../LockError.js"
import { LockStore } from "../../LockStore.js"
import type * as TypedLock from "../../TypedLock.js"
import * as EffectLine from "../effectLine.js"
import * as Internal from "../lock/lock.js"
import * as Options from "../options/options.js"

/** The schema's value to and from the text a store keeps, with errors that name the lock. */
class Codec<A, I, R> {
  readonly #encode: (value: A) => Effect.Effect<string, EffectLine.SchemaError, R>
  readonly #decode: (text: unknown) => Effect.Effect<A, EffectLine.SchemaError, R>

  constructor(schema: EffectLine.Codec<A, I, R>) {
    const json = EffectLine.jsonCodec(schema)
    this.#encode = EffectLine.encodeEffect(json)
    this.#decode = EffectLine.decodeUnknownEffect(json)
  }

  encode(name: string, value: A): Effect.Effect<string, LockDataError, R> {
    return Effect.mapError(this.#encode(value), (cause) => new LockDataError({ name, direction: "encode", cause }))
  }

  decode(name: string, text: unknown): Effect.Effect<A, LockDataError, R> {
    return Effect.mapError(this.#decode(text), (cause) => new LockDataError({ name, direction: "decode", cause }))
  }
}

const span = (operation: string, name: string, fence?: number) =>
  [operation, {
    attributes: fence === undefined ? { "lock.name": name } : { "lock.name": name, "lock.fence": fence },
    captureStackTrace: false
  }] as const

class TypedLeaseImpl<A, I, R> implements TypedLock.TypedLease<A, R> {
  readonly lease: Lease
  readonly #codec: Codec<A, I, R>
  /** The latest value this handle stored, or read at a re-entry. */
  #value: A

  constructor(lease: Lease, codec: Codec<A, I, R>, value: A) {
    this.lease = lease
    this.#codec = codec
    this.#value = value
  }

  get name(): string {
    return this.lease.name
  }
  get owner(): string {
    return this.lease.owner
  }
  get holder(): string {
    return this.lease.holder
  }
  get fence(): number {
    return this.lease.fence
  }
  get data(): A {
    return this.#value
  }
  get status(): Effect.Effect<LeaseStatus> {
    return this.lease.status
  }
  get changes(): Stream.Stream<LeaseStatus> {
    return this.lease.changes
  }
  get isHeld(): Effect.Effect<boolean> {
    return this.lease.isHeld
  }
  get lost(): Effect.Effect<never, LockLost> {
    return this.lease.lost
  }

  update(value: A): Effect.Effect<void, LockDataError | LockLost | LockStoreError | LockConfigError, R> {
    const lease = this.lease
    return Effect.flatMap(this.#codec.encode(lease.name, value), (text) =>
      Effect.map(lease.updateData(text), () => {
        // Updates of one lease are written in turn, but may finish here in another order: the lease's data is
        // the one written last.
        if (lease.data === text) this.#value = value
      })).pipe(Effect.withSpan(...span("TypedLock.update", lease.name, lease.fence)))
  }
}

/** The typed handle of `lease`, acquired with `text` (`value` encoded): a re-entered lease holds the outer's data. */
const typedLease = <A, I, R>(
  lease: Lease,
  codec: Codec<A, I, R>,
  text: string,
  value: A
): Effect.Effect<TypedLock.TypedLease<A, R>, LockDataError, R> =>
  lease.data === text
    ? Effect.succeed(new TypedLeaseImpl(lease, codec, value))
    : Effect.map(codec.decode(lease.name, lease.data), (decoded) => new TypedLeaseImpl(lease, codec, decoded))

type Errors = LockNotAcquired | LockStoreError | LockConfigError | LockDataError

/** @internal */
export const make = <A, I, R>(schema: EffectLine.Codec<A, I, R>): TypedLock.TypedLock<A, I, R> => {
  const codec = new Codec(schema)

  const acquire = (
    name: string,
    value: A,
    options?: TypedLock.TypedLockOptions
  ): Effect.Effect<TypedLock.TypedLease<A, R>, Errors, LockStore | Scope.Scope | R> =>
    Effect.gen(function*() {
      // Spread, null would read as no options: a mistake of the caller, to report instead.
      const given = yield* Options.fromCheck(Options.checkRecord(options))
      const text = yield* codec.encode(name, value)
      const lease = yield* Internal.acquire(name, { ...given, data: text })
      return yield* typedLease(lease, codec, text, value)
    }).pipe(Effect.withSpan(...span("TypedLock.acquire", name)))

  const run = <X, E, R2>(
    name: string,
    value: A,
    section: TypedLock.Section<A, R, X, E, R2>,
    options: TypedLock.TypedLockOptions | undefined
  ): Effect.Effect<X, E | Errors | LockLost, R | R2 | LockStore> =>
    Effect.flatMap(
      Effect.zip(Options.fromCheck(Options.checkRecord(options)), codec.encode(name, value)),
      ([given, text]) => {
        const lockOptions: LockOptions = { ...given, data: text }
        return Effect.isEffect(section)
          ? Internal.withLock(name, section, lockOptions)
          : Internal.withLease(
            name,
            (lease) => Effect.flatMap(typedLease(lease, codec, text, value), section),
            lockOptions
          )
      }
    ).pipe(Effect.withSpan(...span("TypedLock.withLock", name)))

  const withLock = ((
    name: string,
    value: A,
    sectionOrOptions?: TypedLock.Section<A, R, unknown, unknown, unknown> | TypedLock.TypedLockOptions,
    options?: TypedLock.TypedLockOptions
  ) =>
    Effect.isEffect(sectionOrOptions) || typeof sectionOrOptions === "function"
      ? run(name, value, sectionOrOptions, options)
      : (section: TypedLock.Section<A, R, unknown, unknown, unknown>) =>
        run(name, value, section, sectionOrOptions)) as TypedLock.TypedLock<A, I, R>["withLock"]

  const holder = (
    name: string
  ): Effect.Effect<
    Option.Option<TypedLock.Holder<A>>,
    LockStoreError | LockConfigError | LockDataError,
    LockStore | R
  > =>
    Effect.gen(function*() {
      const store = yield* LockStore
      const validName = yield* Options.validateName(name, store)
      const found = yield* store.inspect(validName)
      if (Option.isNone(found) || found.value.owner === undefined) return Option.none()
      const record = found.value
      const data = record.data === undefined ? Option.none<A>() : Option.some(yield* codec.decode(name, record.data))
      return Option.some<TypedLock.Holder<A>>({
        name: record.name,
        holder: record.holder ?? "",
        owner: record.owner!,
        fence: record.fence,
        leaseUntil: record.leaseUntil,
        acquiredAt: record.acquiredAt ?? 0,
        data,
        record
      })
    }).pipe(Effect.withSpan(...span("TypedLock.holder", name)))

  return { schema, acquire, withLock, holder }
}
