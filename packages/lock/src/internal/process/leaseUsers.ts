/**
 * The fibers that rely on one lease, and so must stop when it ends.
 *
 * - Holders: the fiber that acquired the lease, and every fiber that took it over when that one ended (the fiber that
 *   ran `Effect.timeout`, `race`, a concurrent `all` or a layer build around the acquire: on Effect 3 the one that
 *   joined it, see `heldLeases.ts`; on Effect 4 the fiber of the `Lock.scoped` region, see `leaseGuard.ts`).
 *   They are interrupted when the lease is lost. Its release is theirs to make, so it does not interrupt them.
 * - Borrowers: re-entered sections, which run under a lease another acquisition holds. They are interrupted when the
 *   lease is lost and, before the lock is given back, when it is released: a borrowed lease never outlives its owner.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as EffectLine from "../effectLine.js"

type Users = Set<EffectLine.Fiber<unknown, unknown>>

/**
 * Borrowers are made on first use: few leases are ever re-entered, and an empty set costs more than the rest of this
 * record.
 *
 * @internal
 */
export class LeaseUsers {
  readonly holders: Users = new Set()
  /** @internal */
  lent: Users | undefined = undefined
  get borrowers(): Users {
    return this.lent ??= new Set()
  }
}

/** @internal */
export const make = (): LeaseUsers => new LeaseUsers()

/**
 * Interrupts every holder and borrower without waiting for them: each one's own scope closing runs what follows.
 *
 * @internal
 */
export const interruptOnLoss = (users: LeaseUsers): Effect.Effect<void> =>
  EffectLine.withFiber((current) => {
    for (const fiber of users.holders) if (fiber !== current) EffectLine.interruptUnsafe(fiber, current)
    if (users.lent !== undefined) {
      for (const fiber of users.lent) if (fiber !== current) EffectLine.interruptUnsafe(fiber, current)
    }
    return Effect.void
  })

/**
 * Interrupts the borrowers and waits until they have stopped, so that none runs once the lock is given back. The
 * fiber that releases is never waited for (it would wait for itself): it is interrupted once its finalizers are done.
 *
 * @internal
 */
export const stopBorrowers = (users: LeaseUsers): Effect.Effect<void> =>
  EffectLine.withFiber((current) => {
    const borrowers = users.lent
    if (borrowers === undefined || borrowers.size === 0) return Effect.void
    const others: Array<EffectLine.Fiber<unknown, unknown>> = []
    for (const fiber of borrowers) {
      if (fiber === current) EffectLine.interruptUnsafe(current, current)
      else others.push(fiber)
    }
    borrowers.clear()
    return others.length === 0 ? Effect.void : Fiber.interruptAll(others)
  })
