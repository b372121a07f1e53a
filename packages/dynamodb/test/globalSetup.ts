/**
 * Starts AWS DynamoDB Local once for the dynamodb test project, or reports why its tests are skipped (no Java >= 17,
 * and not CI: under CI=true a missing Java fails the run instead). DYNAMODB_ENDPOINT, when set, is handed to the test
 * files as an extra target.
 */
import * as DynamoServer from "@leasehold/testing/DynamoServer"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import type { TestProject } from "vitest/node"

/** What the test files learn about the DynamoDB Local run. */
export type DynamoDBLocalRun =
  | { readonly run: true; readonly endpoint: string; readonly engine: string }
  | { readonly run: false; readonly reason: string }

declare module "vitest" {
  export interface ProvidedContext {
    readonly dynamodbLocal: DynamoDBLocalRun
    /** DYNAMODB_ENDPOINT, when set: the same tests run against it as well. */
    readonly externalEndpoint: string | undefined
  }
}

export default async function setup(project: TestProject) {
  // DYNAMODB_ENDPOINT is an extra target (see LockStoreConformance.dynamodb.test.ts), never a replacement for the
  // engines the project starts itself.
  const external = process.env.DYNAMODB_ENDPOINT
  project.provide("externalEndpoint", external === undefined || external === "" ? undefined : external)
  const availability = await Effect.runPromise(DynamoServer.dynamoDBLocalAvailability)
  if (!availability.run) {
    console.warn(`\n[dynamodb] ${availability.reason}\n`)
    project.provide("dynamodbLocal", { run: false, reason: availability.reason })
    return
  }
  const scope = Effect.runSync(Scope.make())
  const server = await Effect.runPromise(
    DynamoServer.makeDynamoDBLocal().pipe(Effect.provideService(Scope.Scope, scope))
  )
  project.provide("dynamodbLocal", { run: true, endpoint: server.serverEndpoint, engine: server.engine })
  return () => Effect.runPromise(Scope.close(scope, Exit.void))
}
