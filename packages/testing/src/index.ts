/**
 * A DynamoDB-compatible server for tests (dynalite, DynamoDB Local or a given endpoint) behind a counting, pausable
 * proxy, as a scoped layer.
 *
 * @since 0.1.0
 */
export * as DynamoServer from "./DynamoServer.js"

/**
 * The `LockStore` conformance suite: one set of tests that every store runs.
 *
 * @since 0.1.0
 */
export * as LockStoreConformance from "./LockStoreConformance.js"
