/**
 * What a run records of each write a section makes, and the log that records them through the fenced resource.
 *
 * @since 1.0.0
 */
import type * as ReadWriteMode from "../record/ReadWriteMode.js"
import * as FencedResource from "./FencedResource.js"

/**
 * One write a section made: to the fenced resource, or, under permits of a semaphore, to no fenced resource (holders
 * of a semaphore write side by side, so fences do not order their writes).
 *
 * @since 1.0.0
 * @category models
 */
export interface WriteRecord {
  readonly at: number
  readonly name: string
  readonly fence: number
  /** The section whose critical section the write belongs to (a child on a borrowed lease writes for its parent). */
  readonly section: number
  /** The use that wrote, when not `section` itself: a child. */
  readonly by?: number | undefined
  /** Whether the fenced resource accepted it; always for a write under permits, which it does not see. */
  readonly accepted: boolean
  /** The highest fence the resource had seen for this name before the write. */
  readonly highestBefore: number | undefined
  /** The permits of a semaphore the write was made under; absent for a write under a lock. */
  readonly permits?: number | undefined
  /**
   * Under a read/write lock (the permits of its mode): a writer's write or a reader's read of the resource the lock
   * guards (`FencedResource.makeReadWrite`), which judged it (`accepted`, `highestBefore`: a writer's fence).
   */
  readonly mode?: ReadWriteMode.Mode | undefined
}

/**
 * The writes of one run, made through a fresh fenced resource.
 *
 * @since 1.0.0
 * @category models
 */
export interface WriteLog {
  readonly writes: Array<WriteRecord>
  /**
   * Records a write of `section` (by use `by`) with `fence` at true time `at`: to the fenced resource, or under
   * `permits` of a semaphore, to none, but under a read/write lock held in `mode`, to the resource behind it.
   */
  readonly write: (
    at: number,
    name: string,
    fence: number,
    section: number,
    by: number,
    permits: number | undefined,
    mode?: ReadWriteMode.Mode
  ) => void
}

/**
 * An empty log, with fenced resources (a lock's, a read/write lock's) that have seen no write.
 *
 * @since 1.0.0
 * @category constructors
 */
export const makeLog = (): WriteLog => {
  const resource = FencedResource.make()
  const readWrite = FencedResource.makeReadWrite()
  const writes: Array<WriteRecord> = []
  return {
    writes,
    write: (at, name, fence, section, by, permits, mode) => {
      const result: ReturnType<FencedResource.FencedResource["write"]> = mode !== undefined
        ? readWrite.access(name, fence, mode)
        : permits === undefined
        ? resource.write(name, fence)
        : { accepted: true }
      writes.push({
        at,
        name,
        fence,
        section,
        ...(by === section ? {} : { by }),
        accepted: result.accepted,
        highestBefore: result.highestBefore,
        ...(permits === undefined ? {} : { permits }),
        ...(mode === undefined ? {} : { mode })
      })
    }
  }
}
