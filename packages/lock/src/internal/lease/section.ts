/**
 * Running a critical section under a lease: in a fiber of its own, which the end of the lease interrupts, with that
 * interruption turned into a `LockLost` failure.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import type { LeaseStatus } from "../../Lease.js"
import { LockLost, type LostReason } from "../../LockError.js"
import * as EffectLine from "../effectLine.js"
import { startAtOnce } from "../process/background.js"
import type * as HeldLeases from "../process/heldLeases.js"

/** @internal */
export type Restore = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>

/**
 * What a section needs of the lease it runs under: a lock's `Lease` and a semaphore's permits both have it.
 *
 * @internal
 */
export interface SectionLease {
  readonly name: string
  readonly owner: string
  readonly fence: number
  readonly status: Effect.Effect<LeaseStatus>
}

/**
 * Whether the argument after a name is a section (a program, or a function of what it holds) rather than options.
 * Some effects are functions too (on Effect 3 a `Context.Tag` class, on Effect 4 every `Context.Service` key), so a
 * function is a section either way, and wherever the two are told apart an effect is asked first.
 *
 * @internal
 */
export const isSection = (u: unknown): boolean => Effect.isEffect(u) || typeof u === "function"

/**
 * A section's program: an effect as it is, or the function's, made in the section's fiber from what it holds (so a
 * function that throws fails the section with that defect).
 *
 * @internal
 */
export const sectionOf = <L, A, E, R>(
  section: Effect.Effect<A, E, R> | ((held: L) => Effect.Effect<A, E, R>),
  held: L
): Effect.Effect<A, E, R> => Effect.isEffect(section) ? section : Effect.suspend(() => section(held))

const endedUnder = (lease: SectionLease, reason: LostReason) =>
  new LockLost({ name: lease.name, owner: lease.owner, fence: lease.fence, reason, by: undefined })

/**
 * Runs a section in a fiber of its own, which the end of the lease interrupts: a fiber can not be un-interrupted, so
 * only a child's interruption can be turned into a `LockLost` failure of this effect. A holder's section is stopped
 * by a loss or a hand-off; a borrower's (a re-entered section) also by the outer acquisition's release. Must run
 * uninterruptibly, with `restore` the caller's mask.
 *
 * @internal
 */
export const runSection = <A, E, R>(
  entry: HeldLeases.Entry,
  section: Effect.Effect<A, E, R>,
  role: "holder" | "borrower",
  restore: Restore
): Effect.Effect<A, E | LockLost, R> => runSectionUnder([{ entry, role }], section, restore)

/**
 * One of the leases a section runs under, and what the section is to it: its holder, or a borrower of a lease an
 * outer acquisition holds.
 *
 * @internal
 */
export interface Under {
  readonly entry: HeldLeases.Entry
  readonly role: "holder" | "borrower"
}

/**
 * `runSection` under several leases at once: the end of any of them interrupts the section, which fails with the
 * `LockLost` of the first, in the order given, that ended.
 *
 * @internal
 */
export const runSectionUnder = <A, E, R>(
  leases: ReadonlyArray<Under>,
  section: Effect.Effect<A, E, R>,
  restore: Restore
): Effect.Effect<A, E | LockLost, R> =>
  Effect.gen(function*() {
    const fiber = yield* EffectLine.forkChild(section, startAtOnce)
    const users = leases.map(({ entry, role }) => role === "holder" ? entry.users.holders : entry.users.borrowers)
    for (const fibers of users) fibers.add(fiber)
    // Ended before the section existed to be interrupted: stop it before it does anything.
    if (leases.some(({ entry }) => !entry.isLive())) yield* EffectLine.interruptFork(fiber)
    const exit = yield* EffectLine.onInterruptMasked(restore(Fiber.await(fiber)), Fiber.interrupt(fiber))
    // The release stops borrowers by taking them out of the set before the lease's status says "Released".
    const cutOff = users.map((fibers) => !fibers.has(fiber))
    for (const fibers of users) fibers.delete(fiber)
    if (Exit.isFailure(exit) && EffectLine.hasInterruptsOnly(exit.cause)) {
      for (const [i, { entry, role }] of leases.entries()) {
        const lease = entry.lease as SectionLease
        const status = yield* lease.status
        if (status._tag === "Lost") return yield* status.error
        if (status._tag === "HandedOff") return yield* endedUnder(lease, "handedOff")
        if (role === "borrower" && (cutOff[i] || status._tag === "Released")) {
          return yield* endedUnder(lease, "released")
        }
      }
    }
    return yield* exit
  })
