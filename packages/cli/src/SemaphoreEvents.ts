/**
 * What changed in a table's semaphores between two looks: what `watch` reports beside the locks' changes.
 *
 * @since 1.0.0
 */
import * as LateRenew from "./internal/lateRenew.js"
import * as Render from "./Render.js"

/**
 * One change to one holder of a semaphore's permits, which a holder's `owner` tells apart from every other
 * acquisition. `Released` is a holder gone, by giving its permits back, by a force release, or removed by an acquirer
 * once its lease was over (`expired` says whether its lease had run out when last seen); `Expiring` is a lease with
 * less than a third left (renews are late); `Expired` is a lease that ran out; `Renewed` is one renewed after that.
 *
 * @since 1.0.0
 * @category models
 */
export interface SemaphoreEvent {
  readonly _tag: "Acquired" | "Released" | "Expiring" | "Expired" | "Renewed"
  /** The semaphore's name. */
  readonly name: string
  /** The holder's owner id. */
  readonly owner: string
  readonly text: string
}

const permits = (n: number) => `${n} permit${n === 1 ? "" : "s"}`

const holderOf = (holder: Render.PermitHolderView) => `${holder.holder} (fence ${holder.fence})`

const inUse = (semaphore: Render.SemaphoreView) => `${semaphore.used} of ${semaphore.limit} in use`

const holderChanges = (
  name: string,
  was: Render.SemaphoreView | undefined,
  now: Render.SemaphoreView | undefined
): ReadonlyArray<SemaphoreEvent> => {
  const events: Array<SemaphoreEvent> = []
  const before = new Map((was?.holders ?? []).map((holder) => [holder.owner, holder] as const))
  const after = new Map((now?.holders ?? []).map((holder) => [holder.owner, holder] as const))
  for (const [owner, held] of before) {
    if (after.has(owner)) continue
    events.push({
      _tag: "Released",
      name,
      owner,
      text: `released ${permits(held.permits)} of semaphore "${name}" (was ${holderOf(held)}` +
        (held.expired ? `, whose lease had run out)` : ")") + (now === undefined ? "" : `; ${inUse(now)}`)
    })
  }
  for (const [owner, holder] of after) {
    const previous = before.get(owner)
    if (previous === undefined) {
      events.push({
        _tag: "Acquired",
        name,
        owner,
        text: `acquired ${permits(holder.permits)} of semaphore "${name}" by ${holderOf(holder)}` +
          (now === undefined ? "" : `; ${inUse(now)}`)
      })
    } else if (holder.expired && !previous.expired) {
      events.push({
        _tag: "Expired",
        name,
        owner,
        text: `lease of ${holderOf(holder)} on semaphore "${name}" ran out: it stopped renewing (or its clock is ` +
          `off); the next acquirer that needs its permits removes it`
      })
    } else if (LateRenew.isExpiring(holder) && !LateRenew.isExpiring(previous) && !previous.expired) {
      events.push({
        _tag: "Expiring",
        name,
        owner,
        text:
          `lease of ${holderOf(holder)} on semaphore "${name}" running late: ${Render.remaining(holder)} left, it ` +
          `is late renewing`
      })
    } else if (previous.expired && !holder.expired) {
      events.push({
        _tag: "Renewed",
        name,
        owner,
        text: `${holderOf(holder)} renewed its permits of semaphore "${name}" again after running out`
      })
    }
  }
  return events
}

/**
 * The changes from `before` to `after` (both keyed by semaphore name), in name order, and within a semaphore the
 * holders gone before the holders come.
 *
 * @since 1.0.0
 * @category constructors
 */
export const diff = (
  before: ReadonlyMap<string, Render.SemaphoreView>,
  after: ReadonlyMap<string, Render.SemaphoreView>
): ReadonlyArray<SemaphoreEvent> =>
  [...new Set([...before.keys(), ...after.keys()])].sort().flatMap((name) =>
    holderChanges(name, before.get(name), after.get(name))
  )
