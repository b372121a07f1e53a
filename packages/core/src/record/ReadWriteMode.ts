/**
 * A read/write lock as a semaphore: many readers or one writer on one name. Its record is the semaphore record of the
 * name with `limit` permits; a reader holds one of them, a writer all of them. So the store's one rule for semaphores,
 * permits held never above the limit, is also the lock's: never two writers, never a writer with a reader. Fences
 * are the semaphore's: every acquisition, read or write, gets one above every earlier acquisition's.
 *
 * @since 1.0.0
 */
import { maxLimit, type PermitHolder } from "./SemaphoreRecord.js"

/**
 * How a read/write lock is held: shared by readers, or by one writer alone.
 *
 * @since 1.0.0
 * @category models
 */
export type Mode = "read" | "write"

/**
 * The permits of a read/write lock's record: the most readers that may hold it at once.
 *
 * @since 1.0.0
 * @category constants
 */
export const limit = maxLimit

/**
 * The permits an acquisition in `mode` takes: one to read, all of them to write.
 *
 * @since 1.0.0
 * @category getters
 */
export const permitsOf = (mode: Mode): number => mode === "read" ? 1 : limit

/**
 * The mode a holder of a read/write lock's record holds it in, by its permits.
 *
 * @since 1.0.0
 * @category getters
 */
export const modeOf = (holder: Pick<PermitHolder, "permits">): Mode => holder.permits === limit ? "write" : "read"
