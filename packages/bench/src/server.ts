/**
 * The DynamoDB server of a bench run, in its own process so that the bench process's `process.cpuUsage` is the
 * client's alone. Started with IPC by `ServerProcess.start`; argv[2] is the engine ("dynalite" | "dynamodb-local").
 * Clients connect through the bench's `Meter` in front of the server. Answers `{ id, op: "requests" | "reset" }`
 * messages with the meter's request counts, `"units"` with the request units since the last reset, `"writeLog"` with
 * the URL of a (cleared) `WriteLog` in front of the server, and `"writes"` with that log's snapshot.
 */
import * as DynamoServer from "@leasehold/testing/DynamoServer"
import * as Effect from "effect/Effect"
import * as Meter from "./Meter.js"
import * as WriteLog from "./WriteLog.js"

const engine = process.argv[2] === "dynamodb-local" ? "dynamodb-local" : "dynalite"

interface Request {
  readonly id: number
  readonly op: "requests" | "reset" | "stop" | "units" | "writeLog" | "writes"
}

const program = Effect.gen(function*() {
  const server = engine === "dynalite" ? yield* DynamoServer.makeDynalite : yield* DynamoServer.makeDynamoDBLocal()
  let stop = () => {}
  const stopped = new Promise<void>((resolve) => {
    stop = resolve
  })
  let writeLog: Promise<WriteLog.WriteLog> | undefined
  yield* Effect.addFinalizer(() => Effect.promise(async () => (await writeLog)?.close()))
  const meter = yield* Effect.acquireRelease(
    Effect.promise(() => Meter.start(server.serverEndpoint, server.clientConfig)),
    (meter) => Effect.promise(() => meter.close())
  )
  process.on("message", (message: Request) => {
    if (message.op === "stop") return stop()
    if (message.op === "writeLog") {
      writeLog ??= WriteLog.start(server.serverEndpoint)
      void writeLog.then((log) => {
        log.clear()
        process.send?.({ id: message.id, url: log.url })
      })
      return
    }
    if (message.op === "writes") {
      const empty: WriteLog.Snapshot = { now: performance.now(), cpuMs: WriteLog.cpuMs(), writes: {}, answered: [] }
      void (writeLog ?? Promise.resolve(undefined)).then((log) =>
        process.send?.({ id: message.id, snapshot: log?.snapshot() ?? empty })
      )
      return
    }
    if (message.op === "units") {
      void meter.units().then((units) => process.send?.({ id: message.id, units }))
      return
    }
    if (message.op === "reset") meter.reset()
    process.send?.({ id: message.id, counts: message.op === "reset" ? {} : meter.counts() })
  })
  process.on("disconnect", () => stop())
  process.send?.({ id: 0, clientConfig: { ...server.clientConfig, endpoint: meter.url } })
  yield* Effect.promise(() => stopped)
})

Effect.runPromise(Effect.scoped(program)).then(
  () => process.exit(0),
  (error) => {
    console.error(error)
    process.exit(1)
  }
)
