/**
 * One acquisition of a contention loop, recorded: the section notes when it was entered and holds for `holdMs`; a
 * lease lost inside it (a correct outcome on a paused or loaded machine) marks the acquisition lost instead of ending
 * the loop, as a service would go on.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type { Acquisition } from "./Protocol.js"

const now = () => performance.timeOrigin + performance.now()

/** The section to run under the lock or permits, and what to do when its lease is lost. */
export const make = (acquisitions: Array<Acquisition>, askedAt: number, holdMs: number) => {
  // Where this acquisition's entry is, once the section has begun.
  let entered: number | undefined
  const section = Effect.andThen(
    Effect.sync(() => {
      entered = acquisitions.push({ askedAt, enteredAt: now() }) - 1
    }),
    Effect.sleep(Duration.millis(holdMs))
  )
  const markLost = Effect.sync(() => {
    // Lost before the section began: the lease was acquired, so it counts, entered when the loss came.
    if (entered === undefined) acquisitions.push({ askedAt, enteredAt: now(), lost: true })
    else acquisitions[entered] = { ...acquisitions[entered]!, lost: true }
  })
  return { section, markLost }
}

/** The time now, as the loops record it: epoch ms with sub-millisecond precision. */
export const timestamp = now
