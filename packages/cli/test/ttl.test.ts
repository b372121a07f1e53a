/**
 * `leasehold table check` and TTL on a server that has it (AWS DynamoDB Local): a table whose TTL is off is a
 * problem (exit 1), unlike on dynalite, which can not turn TTL on at all (see cli.test.ts); `--ignore-ttl` accepts it,
 * and `table create` on it turns TTL on.
 *
 * DynamoDB Local needs Java 17 or later; without it the suite is skipped with the reason in its name.
 */
import { CreateTableCommand, DynamoDBClient } from "@aws-sdk/client-dynamodb"
import { describe, expect, layer } from "@effect/vitest"
import * as DynamoServer from "@leasehold/testing/DynamoServer"
import { Effect, Layer } from "effect"
import { CliBundleLive, run, unique } from "./support.js"

const availability = await Effect.runPromise(DynamoServer.dynamoDBLocalAvailability)

const timeout = 60_000

/** A table keyed as a lock table, made without the CLI or the library: nothing turns its TTL on. */
const makeTableWithoutTtl = Effect.gen(function*() {
  const server = yield* DynamoServer.DynamoServer
  const tableName = unique("no-ttl")
  yield* Effect.acquireUseRelease(
    Effect.sync(() => new DynamoDBClient(server.clientConfig)),
    (client) =>
      Effect.promise(() =>
        client.send(
          new CreateTableCommand({
            TableName: tableName,
            BillingMode: "PAY_PER_REQUEST",
            KeySchema: [{ AttributeName: "key", KeyType: "HASH" }],
            AttributeDefinitions: [{ AttributeName: "key", AttributeType: "S" }]
          })
        )
      ),
    (client) => Effect.sync(() => client.destroy())
  )
  return { tableName, flags: ["--endpoint", server.clientConfig.endpoint, "--table", tableName] }
})

describe.skipIf(!availability.run)(`table check and TTL on DynamoDB Local (${availability.reason})`, () => {
  layer(Layer.mergeAll(DynamoServer.layerDynamoDBLocal, CliBundleLive), { timeout: "120 seconds" })((it) => {
    it.effect(
      "a table whose TTL is off fails the check; --ignore-ttl accepts it; table create turns TTL on",
      () =>
        Effect.gen(function*() {
          const { flags } = yield* makeTableWithoutTtl
          const [json, text, ignoring] = yield* Effect.all([
            run(["table", "check", ...flags, "--json"]),
            run(["table", "check", ...flags]),
            run(["table", "check", ...flags, "--ignore-ttl"])
          ], { concurrency: 2 })
          expect(json.code, json.stderr).toBe(1)
          const report = JSON.parse(json.stdout)
          expect(report).toMatchObject({ ok: false, warnings: [] })
          expect(report.problems.map((problem: { problem: string }) => problem.problem)).toEqual(["TtlDisabled"])
          expect(text.code).toBe(1)
          expect(text.stdout).toContain("TtlDisabled: TTL is off")
          expect(text.stdout).not.toContain("warning")
          expect(ignoring.code, ignoring.stdout).toBe(0)
          expect(ignoring.stdout).toContain("is ready for locks")

          const created = yield* run(["table", "create", ...flags])
          expect(created.code, created.stderr).toBe(0)
          expect(created.stdout).toContain("already exists")
          expect(created.stdout).toContain("TTL on \"ttl\": enabled")
          const after = yield* run(["table", "check", ...flags, "--json"])
          expect(after.code, after.stdout).toBe(0)
          expect(JSON.parse(after.stdout)).toMatchObject({ ok: true, problems: [], warnings: [] })
        }),
      timeout
    )
  })
})
