export {}

/**
 * The `LockStore` conformance suite: one set of tests that every store runs.
 *
 * @since 0.1.0
 */
export * as LockStoreConformance from "./LockStoreConformance.js"
