/**
 * What changed between two looks at a lock table: what `watch` reports.
 *
 * @since 1.0.0
 */
import * as LateRenew from "./internal/lateRenew.js"
import * as Render from "./Render.js"

/**
 * One change. `Takeover` is a new owner whose lease began after the old one ran out: the old holder stopped renewing
 * and another took the lock over. A new owner whose lease began while the old one still ran was given the lock by a
 * release (or a force release) between two looks: that is reported as what it was, `Released` then `Acquired`, each
 * with its fence, so two acquisitions by one process read as two. `HandedOver` is a lease resumed under a new owner
 * id with its fence unchanged (`Lock.handOff`, then `Lock.resume` elsewhere). `Expiring` is a lease with less than a third left,
 * which means renews are late (a holder renews every third of its lease by default); `Expired` is a lease that ran
 * out.
 *
 * @since 1.0.0
 * @category models
 */
export interface LockEvent {
  readonly _tag: "Acquired" | "Released" | "Takeover" | "HandedOver" | "Expiring" | "Expired" | "Renewed"
  readonly name: string
  readonly text: string
}

const holderOf = (lock: Render.LockView) => `${lock.holder ?? "?"} (fence ${lock.fence})`

const isExpiring = (lock: Render.LockView) => lock.held && LateRenew.isExpiring(lock)

/** Whether `now`'s lease began once `was`'s had run out: a takeover, not a release and a new acquisition. */
const tookOver = (was: Render.LockView, now: Render.LockView) =>
  was.expired ||
  (was.leaseUntil !== null && now.acquiredAt !== null && Date.parse(now.acquiredAt) >= Date.parse(was.leaseUntil))

const released = (name: string, was: Render.LockView): LockEvent => ({
  _tag: "Released",
  name,
  text: `released "${name}" (was ${holderOf(was)})`
})

const acquired = (name: string, now: Render.LockView): LockEvent => ({
  _tag: "Acquired",
  name,
  text: `acquired "${name}" by ${holderOf(now)}`
})

/**
 * The changes from `before` to `after` (both keyed by name), in name order.
 *
 * @since 1.0.0
 * @category constructors
 */
export const diff = (
  before: ReadonlyMap<string, Render.LockView>,
  after: ReadonlyMap<string, Render.LockView>
): ReadonlyArray<LockEvent> => {
  const events: Array<LockEvent> = []
  const names = [...new Set([...before.keys(), ...after.keys()])].sort()
  for (const name of names) {
    const was = before.get(name)
    const now = after.get(name)
    const wasHeld = was?.held === true
    const isHeld = now?.held === true
    if (!wasHeld && isHeld && now !== undefined) {
      events.push(acquired(name, now))
    } else if (wasHeld && !isHeld && was !== undefined) {
      events.push(released(name, was))
    } else if (wasHeld && isHeld && was !== undefined && now !== undefined) {
      if (was.owner !== now.owner && was.fence === now.fence) {
        events.push({
          _tag: "HandedOver",
          name,
          text: `lease of "${name}" handed over: resumed by a new owner id as ${holderOf(now)}`
        })
      } else if (was.owner !== now.owner && !tookOver(was, now)) {
        events.push(released(name, was), acquired(name, now))
      } else if (was.owner !== now.owner) {
        events.push({
          _tag: "Takeover",
          name,
          text: `takeover of "${name}": ${holderOf(was)} -> ${holderOf(now)} after its lease ran out`
        })
      } else if (now.expired && !was.expired) {
        events.push({
          _tag: "Expired",
          name,
          text: `lease of "${name}" ran out: ${holderOf(now)} stopped renewing (or its clock is off)`
        })
      } else if (isExpiring(now) && !isExpiring(was) && !was.expired) {
        events.push({
          _tag: "Expiring",
          name,
          text: `lease of "${name}" running late: ${Render.remaining(now)} left, ${holderOf(now)} is late renewing`
        })
      } else if (was.expired && !now.expired) {
        events.push({ _tag: "Renewed", name, text: `"${name}" renewed again by ${holderOf(now)} after running out` })
      }
    }
  }
  return events
}
