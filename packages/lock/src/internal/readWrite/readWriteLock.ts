/**
 * `ReadWriteLock`: a semaphore's acquire and keeping (`semaphore.ts`) with a read/write lock's permits
 * (`@leasehold/core/record/ReadWriteMode`), fair waiting, and re-entry. A fiber inside a lock of the name re-enters
 * it: a read inside a read or a write, a write inside a write. A write inside a read is refused
 * (`LockUpgradeRefused`).
 *
 * @internal
 */
import * as ReadWriteMode from "@leasehold/core/record/ReadWriteMode"
import type { SemaphoreRecord } from "@leasehold/core/record/SemaphoreRecord"
import * as Effect from "effect/Effect"
import { dual } from "effect/Function"
import type * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type { LockOptions } from "../../Lock.js"
import {
  type LockConfigError,
  type LockLost,
  type LockNotAcquired,
  type LockStoreError,
  LockUpgradeRefused,
  type SemaphoreLimitMismatch
} from "../../LockError.js"
import { LockStore } from "../../LockStore.js"
import type { Permits } from "../../Permits.js"
import * as EffectLine from "../effectLine.js"
import * as HeldAcquisition from "../lease/acquisition.js"
import { isSection, type Restore } from "../lease/section.js"
import * as Options from "../options/options.js"
import * as Semaphore from "../semaphore/semaphore.js"

/** What an acquire can fail with. */
type AcquireError = LockNotAcquired | LockUpgradeRefused | SemaphoreLimitMismatch | LockStoreError | LockConfigError

/** The keys a fiber's held read/write leases of a store are found by: one per mode, apart from locks' and permits'. */
const entryStores = new WeakMap<LockStore, Record<ReadWriteMode.Mode, object>>()

const entryStoreOf = (store: LockStore, mode: ReadWriteMode.Mode): object => {
  let stores = entryStores.get(store)
  if (stores === undefined) {
    stores = { read: {}, write: {} }
    entryStores.set(store, stores)
  }
  return stores[mode]
}

/** The live lease of the name in `mode` the current fiber re-enters, if any. */
const liveIn = (store: LockStore, name: string, mode: ReadWriteMode.Mode) =>
  HeldAcquisition.reentered(entryStoreOf(store, mode), name)

type Acquisition = HeldAcquisition.Acquisition<Permits>

/**
 * Acquires `name` in `mode` and starts keeping it, or re-enters what the fiber holds; as `Semaphore.acquireKept`,
 * uninterruptibly, and an `Acquired` answer must be released exactly once.
 */
const acquireKept = (
  mode: ReadWriteMode.Mode,
  name: string,
  options: LockOptions | undefined,
  restore: Restore,
  holder: EffectLine.Fiber<unknown, unknown> | undefined
): Effect.Effect<Acquisition, AcquireError, LockStore> =>
  Effect.gen(function*() {
    const store = yield* LockStore
    const validName = yield* Options.validateName(name, store, "semaphore")
    // A writer may read: both modes re-enter a write.
    const writing = yield* liveIn(store, validName, "write")
    if (writing !== undefined) return { _tag: "Reentered", entry: writing } as const
    const reading = yield* liveIn(store, validName, "read")
    if (reading !== undefined) {
      if (mode === "read") return { _tag: "Reentered", entry: reading } as const
      return yield* new LockUpgradeRefused({ name: validName })
    }
    const acquired = yield* Semaphore.acquireKept(
      name,
      { ...options, limit: ReadWriteMode.limit, permits: ReadWriteMode.permitsOf(mode) },
      restore,
      holder,
      {
        entryStore: entryStoreOf(store, mode),
        span: mode === "read" ? "ReadWriteLock.acquireRead" : "ReadWriteLock.acquireWrite",
        attributes: { "lock.name": name, "lock.mode": mode }
      }
    )
    return { _tag: "Acquired", ...acquired } as const
  })

const acquire = (mode: ReadWriteMode.Mode) =>
(
  name: string,
  options?: LockOptions
): Effect.Effect<Permits, AcquireError, LockStore | Scope.Scope> =>
  HeldAcquisition.scoped((restore, self) => acquireKept(mode, name, options, restore, self))

/** @internal */
export const acquireRead = acquire("read")

/** @internal */
export const acquireWrite = acquire("write")

/** A section: a program, or a function of the lease it runs under that makes it. */
type Section<A, E, R> = Effect.Effect<A, E, R> | ((lease: Permits) => Effect.Effect<A, E, R>)

const withSection = <A, E, R>(
  mode: ReadWriteMode.Mode,
  name: string,
  section: Section<A, E, R>,
  options: LockOptions | undefined
): Effect.Effect<A, E | AcquireError | LockLost, R | LockStore> =>
  HeldAcquisition.section((restore) => acquireKept(mode, name, options, restore, undefined), section)

const withMode = (mode: ReadWriteMode.Mode) =>
  dual(
    // Data-first when the second argument is the section: (name, self, options?); pipeable otherwise: (name, options?).
    (args: IArguments) => isSection(args[1]),
    <A, E, R>(first: string | Section<A, E, R>, second: Section<A, E, R> | string, options?: LockOptions) =>
      // The name comes first in both forms, so `dual` hands the pipeable form's program over as the first argument.
      typeof second === "string"
        ? withSection(mode, second, first as Section<A, E, R>, options)
        : withSection(mode, first as string, second, options)
  )

/** @internal */
export const withReadLock = withMode("read")

/** @internal */
export const withWriteLock = withMode("write")

/** @internal */
export const inspect = (
  name: string
): Effect.Effect<Option.Option<SemaphoreRecord>, LockStoreError | LockConfigError, LockStore> =>
  Effect.flatMap(
    LockStore,
    (store) =>
      Effect.flatMap(Options.validateName(name, store, "semaphore"), (validName) => store.inspectSemaphore(validName))
  ).pipe(EffectLine.withSpan("ReadWriteLock.inspect", { attributes: { "lock.name": name } }))
