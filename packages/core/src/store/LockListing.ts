/**
 * `list` over records kept by name: the page size a request asks for, and the page of names from its prefix and
 * cursor, sorted, so that following the cursor to the end yields every record exactly once.
 *
 * @since 1.0.0
 */
import * as Checked from "../Checked.js"
import type { LockRecord } from "../record/LockRecord.js"
import * as LockProtocol from "./LockProtocol.js"

/**
 * The page size of `request`: its `limit`, or `LockProtocol.defaultListLimit` when it gives none; a store refuses
 * the request, reading nothing, when that is not a page size (`LockProtocol.listLimitProblem`).
 *
 * @since 1.0.0
 * @category validation
 */
export const pageSize = (request: LockProtocol.ListRequest): Checked.Checked<number> => {
  const limit = request.limit ?? LockProtocol.defaultListLimit
  const problem = LockProtocol.listLimitProblem(limit)
  return problem === undefined ? Checked.ok(limit) : Checked.invalid(problem)
}

/**
 * One page of `records`: the names that start with the request's prefix and sort after its cursor, in order of their
 * UTF-16 code units, at most `limit` of them. The cursor is the page's last name when more follow it.
 *
 * @since 1.0.0
 * @category paging
 */
export const page = (
  records: ReadonlyMap<string, LockRecord>,
  request: LockProtocol.ListRequest,
  limit: number
): LockProtocol.ListPage => {
  const prefix = request.prefix ?? ""
  const names = Array.from(records.keys())
    .filter((name) => name.startsWith(prefix) && (request.cursor === undefined || name > request.cursor))
    .sort()
  const page = names.slice(0, limit)
  return {
    records: page.map((name) => records.get(name)!),
    cursor: names.length > limit ? page[page.length - 1] : undefined
  }
}
