/**
 * The loop of one listing page: which request comes next, what each answer adds, and when the page is over, for a
 * Query over a family's partition and for a Scan of the table (the requests and the paging rules are `Listing`'s).
 * The store's `list` (locks) and the operator's listing of a family (locks and semaphores together) page alike; the
 * shell sends each request, decodes its items, and adds those that belong to the page.
 *
 * @since 1.0.0
 */
import type { ItemMap } from "./AttributeValue.js"
import * as Listing from "./Listing.js"

/**
 * A page: its items, and the cursor of the next one (`undefined` on the last page).
 *
 * @since 1.0.0
 * @category models
 */
export interface Page<A> {
  readonly items: ReadonlyArray<A>
  readonly cursor: string | undefined
}

/**
 * One page being read, request by request.
 *
 * @since 1.0.0
 * @category models
 */
export interface Pager<A, Input> {
  /** The next request. */
  readonly input: () => Input
  /** Adds an item of the last answer to the page. */
  readonly add: (item: A) => void
  /** After the items of an answer: the page, when it is over; `undefined` to send `input()` again. */
  readonly next: (lastEvaluatedKey: ItemMap | undefined) => Page<A> | undefined
  /** The page as it stands, for a request that answered nothing to add. */
  readonly end: () => Page<A>
}

/**
 * The pager of a Query page from `startKey`: asking for one item more than the page holds says whether a next page
 * exists, so the last page has no cursor; the cursor of a page is its last item's (`cursorOf`).
 *
 * @since 1.0.0
 * @category constructors
 */
export const query = <A>(
  tableName: string,
  condition: Listing.QueryCondition,
  limit: number,
  startKey: ItemMap | undefined,
  cursorOf: (item: A) => string
): Pager<A, ReturnType<typeof Listing.queryInput>> => {
  const found: Array<A> = []
  let from = startKey
  const end = (): Page<A> => ({ items: found, cursor: undefined })
  return {
    input: () => Listing.queryInput(tableName, condition, limit, found.length, from),
    add: (item) => {
      found.push(item)
    },
    next: (lastEvaluatedKey) => {
      const full = Listing.fullQueryPage(found, limit, cursorOf)
      if (full !== undefined) return full
      from = lastEvaluatedKey
      return from === undefined ? end() : undefined
    },
    end
  }
}

/**
 * The pager of a Scan page from `startKey`: every page ends exactly at a `LastEvaluatedKey`, whose encoding is the
 * next page's cursor.
 *
 * @since 1.0.0
 * @category constructors
 */
export const scan = <A, F extends object>(
  tableName: string,
  filter: F,
  limit: number,
  startKey: ItemMap | undefined
): Pager<A, ReturnType<typeof Listing.scanInput<F>>> => {
  const found: Array<A> = []
  let from = startKey
  return {
    input: () => Listing.scanInput(tableName, filter, limit, found.length, from),
    add: (item) => {
      found.push(item)
    },
    next: (lastEvaluatedKey) => {
      from = lastEvaluatedKey
      const end = Listing.scanPageEnd(from, found.length, limit)
      return end === undefined ? undefined : { items: found, cursor: end.cursor }
    },
    end: () => ({ items: found, cursor: undefined })
  }
}
