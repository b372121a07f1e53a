/**
 * Leasehold's DynamoDB store: the live `LockStore`, and helpers to create and check its table.
 *
 * @since 1.0.0
 */

/**
 * The DynamoDB `LockStore`: `make`, `layer`, `layerConfig`, and the table helpers (`createTable`, `checkTable`).
 *
 * @since 1.0.0
 */
export * as DynamoLockStore from "./DynamoLockStore.js"

/**
 * A family's locks and semaphores together, page by page, for operators.
 *
 * @since 1.0.0
 */
export * as DynamoLockItems from "./DynamoLockItems.js"

/**
 * Creating and checking the lock table.
 *
 * @since 1.0.0
 */
export * as DynamoLockTable from "./DynamoLockTable.js"
