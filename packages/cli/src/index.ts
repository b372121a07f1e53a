/**
 * The operator CLI for Leasehold lock tables. The executable is `leasehold` (`bin/leasehold.js`); this entry point
 * exposes the command tree for embedding and tests.
 *
 * @since 0.1.0
 */

/**
 * The command tree and `main`.
 *
 * @since 0.1.0
 */
export * as Cli from "./Cli.js"

/**
 * The exit codes.
 *
 * @since 0.1.0
 */
export * as ExitCode from "./ExitCode.js"

/**
 * What `watch` reports as changes.
 *
 * @since 0.1.0
 */
export * as LockEvents from "./LockEvents.js"

/**
 * What `watch` reports as changes to semaphores.
 *
 * @since 0.2.0
 */
export * as SemaphoreEvents from "./SemaphoreEvents.js"

/**
 * Rendering of locks and semaphores for terminals and JSON.
 *
 * @since 0.1.0
 */
export * as Render from "./Render.js"
