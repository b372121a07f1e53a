/**
 * What a store refuses in a lock request before writing anything, beside its name: what DynamoDB could not keep in an
 * item, or could not order. A store answers such a request with a non-retryable error carrying the message.
 *
 * @since 1.0.0
 */
import { dataProblem, payloadProblem, sequenceProblem } from "../record/LockRecord.js"
import type * as LockProtocol from "./LockProtocol.js"

/**
 * What is wrong with an acquire's holder and data (`LockRecord.payloadProblem`), or `undefined`.
 *
 * @since 1.0.0
 * @category validation
 */
export const acquireProblem = (request: LockProtocol.AcquireRequest): string | undefined =>
  payloadProblem(request)?.message

/**
 * What is wrong with a renew's sequence (`LockRecord.sequenceProblem`), then with the data it sets, if it sets any
 * (`LockRecord.dataProblem`), or `undefined`.
 *
 * @since 1.0.0
 * @category validation
 */
export const renewProblem = (request: LockProtocol.RenewRequest): string | undefined =>
  sequenceProblem(request.sequence) ?? (request.setData === undefined ? undefined : dataProblem(request.setData.data))
