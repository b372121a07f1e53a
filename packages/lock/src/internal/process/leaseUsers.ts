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
 * Each fiber a lease stops keeps the `LockLost` it was stopped with, so that the region around it (`Lock.scoped`,
 * `region.ts`) can fail with that error where the fiber itself can only end interrupted.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { LockLost } from "../../LockError.js"
import * as EffectLine from "../effectLine.js"

type AnyFiber = EffectLine.Fiber<unknown, unknown>

/**
 * A set of fibers, with the part of `Set`'s interface a lease uses. Most leases have one holder and no borrower: one
 * fiber is kept in a field, and a hash table is made only for a second.
 *
 * @internal
 */
export class Users implements Iterable<AnyFiber> {
  #one: AnyFiber | undefined = undefined
  #many: Set<AnyFiber> | undefined = undefined

  get size(): number {
    return this.#many !== undefined ? this.#many.size : this.#one === undefined ? 0 : 1
  }

  has(fiber: AnyFiber): boolean {
    return this.#many !== undefined ? this.#many.has(fiber) : this.#one === fiber
  }

  add(fiber: AnyFiber): this {
    if (this.#many !== undefined) this.#many.add(fiber)
    else if (this.#one === undefined || this.#one === fiber) this.#one = fiber
    else {
      this.#many = new Set([this.#one, fiber])
      this.#one = undefined
    }
    return this
  }

  delete(fiber: AnyFiber): boolean {
    if (this.#many !== undefined) return this.#many.delete(fiber)
    if (this.#one !== fiber) return false
    this.#one = undefined
    return true
  }

  clear(): void {
    this.#one = undefined
    this.#many = undefined
  }

  [Symbol.iterator](): Iterator<AnyFiber> {
    if (this.#many !== undefined) return this.#many.values()
    return (this.#one === undefined ? [] : [this.#one]).values()
  }
}

/** Why a lease stopped a fiber: the first lease to stop it; a fiber can not be un-interrupted, so it stays true. */
const stoppedWith = new WeakMap<AnyFiber, LockLost>()

const stop = (fiber: AnyFiber, by: AnyFiber, error: LockLost): void => {
  if (!stoppedWith.has(fiber)) stoppedWith.set(fiber, error)
  EffectLine.interruptUnsafe(fiber, by)
}

/**
 * The `LockLost` a lease interrupted `fiber` with, if one did: the first, when two leases it relied on ended.
 *
 * @internal
 */
export const stoppedBy = (fiber: AnyFiber): LockLost | undefined => stoppedWith.get(fiber)

/**
 * Borrowers are made on first use: few leases are ever re-entered, and an empty set costs more than the rest of this
 * record.
 *
 * @internal
 */
export class LeaseUsers {
  readonly holders: Users = new Users()
  /** @internal */
  lent: Users | undefined = undefined
  get borrowers(): Users {
    return this.lent ??= new Users()
  }
}

/** @internal */
export const make = (): LeaseUsers => new LeaseUsers()

/**
 * Interrupts every holder and borrower without waiting for them, for `error` (the loss, or the hand-off): each one's
 * own scope closing runs what follows.
 *
 * @internal
 */
export const interruptOnLoss = (users: LeaseUsers, error: LockLost): Effect.Effect<void> =>
  EffectLine.withFiber((current) => {
    for (const fiber of users.holders) if (fiber !== current) stop(fiber, current, error)
    if (users.lent !== undefined) {
      for (const fiber of users.lent) if (fiber !== current) stop(fiber, current, error)
    }
    return Effect.void
  })

/** What a lease being released is, for the `LockLost` its borrowers are stopped with. */
interface Released {
  readonly name: string
  readonly owner: string
  readonly fence: number
  readonly permits: number | undefined
}

/**
 * Interrupts the borrowers, with a `LockLost` of reason "released" for their regions, and waits until they have
 * stopped, so that none runs once the lock is given back. The fiber that releases is never waited for (it would wait
 * for itself): it is interrupted once its finalizers are done.
 *
 * @internal
 */
export const stopBorrowers = (users: LeaseUsers, lease: Released): Effect.Effect<void> =>
  // Most leases are never re-entered: their release asks nothing of the fiber.
  users.lent === undefined || users.lent.size === 0 ? Effect.void : EffectLine.withFiber((current) => {
    const borrowers = users.lent
    if (borrowers === undefined || borrowers.size === 0) return Effect.void
    const { fence, name, owner, permits } = lease
    const released = new LockLost({
      name,
      owner,
      fence,
      reason: "released",
      by: undefined,
      ...(permits === undefined ? {} : { permits })
    })
    const others: Array<AnyFiber> = []
    for (const fiber of borrowers) {
      if (!stoppedWith.has(fiber)) stoppedWith.set(fiber, released)
      if (fiber === current) EffectLine.interruptUnsafe(current, current)
      else others.push(fiber)
    }
    borrowers.clear()
    return others.length === 0 ? Effect.void : Fiber.interruptAll(others)
  })
