/**
 * What a store refuses in a lock request before writing anything, beside its name: what DynamoDB could not keep in an
 * item, or could not order. A store answers such a request with a non-retryable error carrying the message.
 *
 * @since 1.0.0
 */
import { dataProblem, payloadProblem, sequenceProblem } from "../record/LockRecord.js"
import * as LockProtocol from "./LockProtocol.js"

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

/**
 * What is wrong with a `tryAcquireAll` request, or `undefined`: from 1 to `LockProtocol.maxTakenTogether` requests,
 * of distinct names, each as an acquire's (`acquireProblem`).
 *
 * @since 1.0.0
 * @category validation
 */
export const acquireAllProblem = (request: LockProtocol.AcquireAllRequest): string | undefined => {
  const { requests } = request
  if (!Array.isArray(requests) || requests.length < 1 || requests.length > LockProtocol.maxTakenTogether) {
    return `a take of several locks has from 1 to ${LockProtocol.maxTakenTogether} requests; got ` +
      `${Array.isArray(requests) ? requests.length : typeof requests}`
  }
  const names = new Set<string>()
  for (const one of requests) {
    if (names.has(one.name)) return `a take of several locks names "${one.name}" twice`
    names.add(one.name)
    const problem = acquireProblem(one)
    if (problem !== undefined) return problem
  }
  return undefined
}
