/**
 * What a person reads when a fiber that holds a read lock asks for the write lock of the same name.
 *
 * @since 1.0.0
 */

/**
 * What the error knows: the read/write lock's name.
 *
 * @since 1.0.0
 * @category models
 */
export interface Fields {
  readonly name: string
}

/**
 * The message: why the upgrade is refused, and what to do instead.
 *
 * @since 1.0.0
 * @category messages
 */
export const message = (error: Fields): string =>
  `the write lock of "${error.name}" was asked for inside its read lock: an upgrade is refused, since two readers ` +
  `upgrading at once would each wait for the other forever. Take the write lock from the start, or release the ` +
  `read lock and take the write lock, then check again what was read`
