/**
 * What the commands need of the AWS SDK and the DynamoDB store, in one module that the CLI loads only when a command
 * talks to a table (see `load`): most of what the CLI weighs is here, and `--help`, `--version` and usage errors
 * should not wait for it.
 *
 * @internal
 */
export { DynamoDBClient } from "@aws-sdk/client-dynamodb"
export * as DynamoLockItems from "@leasehold/dynamodb/DynamoLockItems"
export * as DynamoLockStore from "@leasehold/dynamodb/DynamoLockStore"
export * as DynamoLockTable from "@leasehold/dynamodb/DynamoLockTable"
