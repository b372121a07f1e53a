/**
 * What reservations did in a simulation: the record of each reservation the store made, and of each acquire of a free
 * lock that a reservation refused, at the true time the store applied the call.
 *
 * @since 1.0.0
 */
import type * as LockProtocol from "../store/LockProtocol.js"
import type * as History from "./History.js"

/**
 * The record of the reservation `process` asked for with `request`, if the store made it (`result` is `Reserved`).
 *
 * @since 1.0.0
 * @category constructors
 */
export const reserved = (
  at: number,
  process: string,
  request: LockProtocol.ReserveRequest,
  result: LockProtocol.ReserveResult
): History.ReservationRecord | undefined => {
  if (result._tag !== "Reserved") return undefined
  const { name, owner, reserveMs } = request
  const reservedUntil = result.record.reservedUntil
  return { kind: "reserved", at, process, name, owner, reservedUntil, reserveMs }
}

/**
 * The record of an acquire by `process` that a reservation refused: the store answered `Conflict` on a lock nobody
 * held but someone had reserved.
 *
 * `judgedNow` says whether the store judged the acquire as of the true time it was applied: an acquire built earlier
 * (a held one, or a copy the transport sent again) is judged as of the time it was built, so whatever reservation
 * refused it, it was refused as of then, and it is not recorded.
 *
 * @since 1.0.0
 * @category constructors
 */
export const refused = (
  at: number,
  process: string,
  result: LockProtocol.AcquireResult,
  judgedNow: boolean
): History.ReservationRecord | undefined => {
  const current = result._tag === "Conflict" ? result.current : undefined
  if (current === undefined || current.owner !== undefined || current.reservedBy === undefined) return undefined
  if (!judgedNow) return undefined
  const { name, reservedBy: owner, reservedUntil } = current
  return { kind: "refused", at, process, name, owner, reservedUntil, reserveMs: 0 }
}
