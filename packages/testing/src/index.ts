/**
 * A DynamoDB-compatible server for tests (dynalite, DynamoDB Local or a given endpoint) behind a counting, pausable
 * proxy, as a scoped layer.
 *
 * @since 1.0.0
 */
export * as DynamoServer from "./DynamoServer.js"

/**
 * A `LockStore` wrapper that injects faults per operation and per simulated process.
 *
 * @since 1.0.0
 */
export * as FaultyStore from "./FaultyStore.js"

/**
 * Seeded simulations of processes with skewed clocks, pauses and faulty stores sharing one lock store.
 *
 * @since 1.0.0
 */
export * as Simulation from "./Simulation.js"

/**
 * Jepsen-style invariants over simulated lock histories, seeded batches and shrinking.
 *
 * @since 1.0.0
 */
export * as SafetyChecker from "./SafetyChecker.js"

/**
 * TypeScript programs bundled for plain `node`, for worker processes in tests and demos.
 *
 * @since 1.0.0
 */
export * as NodeProgram from "./NodeProgram.js"
