/**
 * What a person reads when a semaphore's stored limit is not the one an acquisition asked for.
 *
 * @since 1.0.0
 */

/**
 * What the error knows: the semaphore, the limit asked with, and the limit its record has.
 *
 * @since 1.0.0
 * @category models
 */
export interface Fields {
  readonly name: string
  readonly limit: number
  readonly storedLimit: number
}

/**
 * The message: both limits, and that every process sharing the name must use one.
 *
 * @since 1.0.0
 * @category messages
 */
export const message = (error: Fields): string =>
  `semaphore "${error.name}" has a limit of ${error.storedLimit} in the store, but this acquisition asked ` +
  `with ${error.limit}: every process that shares the name must use the same limit`
