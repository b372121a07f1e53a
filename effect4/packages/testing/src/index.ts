/**
 * A DynamoDB-compatible server for tests (dynalite, DynamoDB Local or a given endpoint) behind a counting, pausable
 * proxy, as a scoped layer.
 *
 * @since 0.1.0
 */
export * as DynamoServer from "./DynamoServer.js"

/**
 * TypeScript programs bundled for plain `node`, for worker processes in tests and demos.
 *
 * @since 0.1.0
 */
export * as NodeProgram from "./NodeProgram.js"
