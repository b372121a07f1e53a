/**
 * What changed between two looks at a lock table: what `watch` reports.
 *
 * @since 0.1.0
 */
import * as LateRenew from "./internal/lateRenew.js"
import * as Render from "./Render.js"

/**
 * One change. `Takeover` is a new owner without a release in between (an expired lease taken over, or a force
 * release followed by a new acquisition between two looks); `Expiring` is a lease with less than a third left, which
 * means renews are late (a holder renews every third of its lease by default); `Expired` is a lease that ran out.
 *
 * @since 0.1.0
 * @category models
 */
export interface LockEvent {
  readonly _tag: "Acquired" | "Released" | "Takeover" | "Expiring" | "Expired" | "Renewed"
  readonly name: string
  readonly text: string
}

const holderOf = (lock: Render.LockView) => `${lock.holder ?? "?"} (fence ${lock.fence})`

const isExpiring = (lock: Render.LockView) => lock.held && LateRenew.isExpiring(lock)

/**
 * The changes from `before` to `after` (both keyed by name), in name order.
 *
 * @since 0.1.0
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
      events.push({ _tag: "Acquired", name, text: `acquired "${name}" by ${holderOf(now)}` })
    } else if (wasHeld && !isHeld && was !== undefined) {
      events.push({ _tag: "Released", name, text: `released "${name}" (was ${holderOf(was)})` })
    } else if (wasHeld && isHeld && was !== undefined && now !== undefined) {
      if (was.owner !== now.owner) {
        events.push({
          _tag: "Takeover",
          name,
          text: `takeover of "${name}": ${holderOf(was)} -> ${holderOf(now)}` +
            (was.expired ? " after its lease ran out" : "")
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
          text: `lease of "${name}" expiring: ${Render.remaining(now)} left, ${holderOf(now)} is late renewing`
        })
      } else if (was.expired && !now.expired) {
        events.push({ _tag: "Renewed", name, text: `"${name}" renewed again by ${holderOf(now)} after running out` })
      }
    }
  }
  return events
}
