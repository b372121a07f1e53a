/**
 * What an acquire that may re-enter hands back, and the two ways a lease is then held: in the caller's scope
 * (`Lock.acquire`, `ReadWriteLock.acquireRead`...) or for one section (`withLock`, `withReadLock`...). A lock and a
 * read/write lock differ only in how they acquire; what follows is this.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { LockLost } from "../../LockError.js"
import * as EffectLine from "../effectLine.js"
import * as HeldLeases from "../process/heldLeases.js"
import * as Keeper from "./keeper.js"
import { type Restore, runSection, sectionOf } from "./section.js"

/**
 * A lease this call acquired (and must release), or the live lease of an outer acquisition it re-entered.
 *
 * @internal
 */
export type Acquisition<Handle> =
  | { readonly _tag: "Acquired"; readonly keeper: Keeper.Keeper<Handle>; readonly entry: HeldLeases.Entry }
  | { readonly _tag: "Reentered"; readonly entry: HeldLeases.Entry }

/**
 * The live lease of `name` under `key` (a store, or a key of its own for another kind of lease) that the current
 * fiber re-enters: one it is inside, or on Effect 4 one a region's fiber takes over from a fiber that just ended.
 *
 * @internal
 */
export const reentered = (key: object, name: string): Effect.Effect<HeldLeases.Entry | undefined> =>
  Effect.flatMap(
    HeldLeases.live(key, name),
    (entry) => entry === undefined ? EffectLine.settled(key, name) : Effect.succeed(entry)
  )

const currentFiber = EffectLine.withFiber((fiber) => Effect.succeed(fiber))

/**
 * Holds what `acquireKept` acquires until the caller's scope closes, the current fiber the one its loss interrupts; a
 * re-entered lease is borrowed for as long. `acquireKept` runs uninterruptibly with the caller's mask.
 *
 * @internal
 */
export const scoped = <Handle, E, R>(
  acquireKept: (
    restore: Restore,
    holder: EffectLine.Fiber<unknown, unknown>
  ) => Effect.Effect<Acquisition<Handle>, E, R>
): Effect.Effect<Handle, E, R | Scope.Scope> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.gen(function*() {
      const self = yield* currentFiber
      const watch = yield* EffectLine.watchEnd
      const acquisition = yield* EffectLine.onErrorMasked(acquireKept(restore, self), Effect.sync(watch.stop))
      const { entry } = acquisition
      if (acquisition._tag === "Reentered") {
        watch.stop()
        entry.users.borrowers.add(self)
        yield* Effect.addFinalizer(() => Effect.sync(() => entry.users.borrowers.delete(self)))
        return entry.lease as Handle
      }
      yield* Keeper.releaseWithScope(acquisition.keeper)
      yield* HeldLeases.enterScoped(entry)
      yield* watch.held(entry)
      return acquisition.keeper.lease
    })
  )

/**
 * Runs `section` (a program, or a function of the handle) under what `acquireKept` acquires, in a fiber its loss
 * interrupts, and releases it when the section ends; a re-entered lease's section runs under the outer acquisition.
 *
 * @internal
 */
export const section = <Handle, A, E, R, E2, R2>(
  acquireKept: (restore: Restore) => Effect.Effect<Acquisition<Handle>, E2, R2>,
  section: Effect.Effect<A, E, R> | ((held: Handle) => Effect.Effect<A, E, R>)
): Effect.Effect<A, E | E2 | LockLost, R | R2> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.flatMap(acquireKept(restore), (acquisition) => {
      // A re-entered section gets the outer acquisition's lease: the one it runs under.
      const self = sectionOf(section, acquisition.entry.lease as Handle)
      if (acquisition._tag === "Reentered") return runSection(acquisition.entry, restore(self), "borrower", restore)
      const { entry, keeper } = acquisition
      return EffectLine.ensuringMasked(
        runSection(entry, restore(HeldLeases.enter(entry)(self)), "holder", restore),
        keeper.release
      )
    })
  )
