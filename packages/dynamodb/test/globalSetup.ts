/**
 * Starts AWS DynamoDB Local once for the dynamodb test project, or reports why its tests are skipped (no Java >= 17,
 * and not CI: under CI=true a missing Java fails the run instead). With DYNAMODB_ENDPOINT set, that server is used
 * and nothing is started.
 */
import * as DynamoServer from "@leasehold/testing/DynamoServer"
import * as Effect from "effect/Effect"
import type { TestProject } from "vitest/node"

/** What the test files learn about the DynamoDB Local run. */
export type DynamoDBLocalRun =
  | { readonly run: true; readonly endpoint: string; readonly engine: string }
  | { readonly run: false; readonly reason: string }

declare module "vitest" {
  export interface ProvidedContext {
    readonly dynamodbLocal: DynamoDBLocalRun
  }
}

export default async function setup(project: TestProject) {
  const preset = process.env.DYNAMODB_ENDPOINT
  if (preset === undefined || preset === "") {
    const availability = await Effect.runPromise(DynamoServer.dynamoDBLocalAvailability)
    if (!availability.run) {
      console.warn(`\n[dynamodb] ${availability.reason}\n`)
      project.provide("dynamodbLocal", { run: false, reason: availability.reason })
      return
    }
  }
  const server = await DynamoServer.startForGlobalSetup("dynamodb-local", { whenJavaMissing: "fail" })
  project.provide("dynamodbLocal", { run: true, endpoint: server.endpoint, engine: server.engine })
  return server.stop
}
