/**
 * `list` and `inspect` judge a lease by the CLI's clock, run here in this process on a `TestClock` against dynalite:
 * a holder that stopped renewing shows as expiring while the skew bound keeps acquirers off, then as expired with how
 * long ago its lease ended; `--held` still lists it, `--expired` lists only such records.
 *
 * The holder is a store's acquiring write on the same clock, never renewed: a process that died.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { expect, layer } from "@effect/vitest"
import { DynamoLockTable } from "@leasehold/dynamodb"
import * as DynamoServer from "@leasehold/testing/DynamoServer"
import { ConfigProvider, Effect, TestClock } from "effect"
import * as Cli from "../src/Cli.js"
import { storeOn, unique } from "./support.js"

/**
 * Runs the CLI in this process on `args`, with an empty environment (the developer's must not change what the test
 * sees), and returns its exit code and output.
 */
const cli = (args: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const stdout: Array<string> = []
    const stderr: Array<string> = []
    const base = yield* Effect.console
    const code = yield* Cli.main(["node", "leasehold", ...args]).pipe(
      Effect.withConsole({
        ...base,
        log: (...parts: ReadonlyArray<unknown>) => Effect.sync(() => void stdout.push(parts.join(" "))),
        error: (...parts: ReadonlyArray<unknown>) => Effect.sync(() => void stderr.push(parts.join(" ")))
      }),
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map())),
      Effect.provide(NodeContext.layer)
    )
    return { code, stdout: stdout.join("\n"), stderr: stderr.join("\n") }
  })

/** The row of `name` in a `list` table. */
const row = (text: string, name: string) => text.split("\n").find((line) => line.startsWith(`${name} `))

const start = Date.parse("2026-11-28T12:00:00.000Z")

layer(DynamoServer.layerDynalite, { timeout: "60 seconds" })("leasehold list and inspect at the CLI's clock", (it) => {
  it.scoped(
    "a holder that stopped renewing is expiring within the skew bound, then expired 32.0s ago; --held keeps it",
    () =>
      Effect.gen(function*() {
        const server = yield* DynamoServer.DynamoServer
        const tableName = unique("expiry")
        yield* DynamoLockTable.createTable({ tableName, clientConfig: server.clientConfig })
        const store = yield* storeOn(server.clientConfig, tableName)
        const flags = ["--endpoint", server.clientConfig.endpoint, "--table", tableName]
        yield* TestClock.setTime(start)
        const acquire = (name: string, holder: string, leaseMs: number) =>
          store.tryAcquire({
            name,
            owner: unique("owner"),
            holder,
            leaseMs,
            data: undefined,
            takeover: { _tag: "Absolute", maxClockSkewMs: 10_000 }
          })
        expect((yield* acquire("stuck", "crashed-worker", 30_000))._tag).toBe("Acquired")
        expect((yield* acquire("busy", "worker-b", 600_000))._tag).toBe("Acquired")

        // 5 s after the lease's end: under the default skew bound of 10 s, nobody takes it over yet.
        yield* TestClock.adjust("35 seconds")
        const early = yield* cli(["list", "--held", ...flags])
        expect(early.code, early.stderr).toBe(0)
        expect(early.stdout).toMatch(/^NAME\s+HOLDER\s+FENCE\s+LEASE\s+AGE$/m)
        expect(row(early.stdout, "stuck")).toMatch(
          /^stuck\s+crashed-worker\s+\d+\s+expiring: ran out 5\.0s ago, can be taken over in 5\.0s\s+35\.0s$/
        )
        expect(row(early.stdout, "busy")).toMatch(/^busy\s+worker-b\s+\d+\s+9m25s left\s+35\.0s$/)
        const strict = yield* cli(["list", "--held", "--max-clock-skew", "2s", ...flags])
        expect(row(strict.stdout, "stuck")).toMatch(/\sexpired 5\.0s ago\s/)

        // 32 s after the lease's end: expired, and still listed by --held, as what it is.
        yield* TestClock.adjust("27 seconds")
        const [held, expired, json, inspected] = yield* Effect.all([
          cli(["list", "--held", ...flags]),
          cli(["list", "--expired", ...flags]),
          cli(["list", "--held", "--json", ...flags]),
          cli(["inspect", "stuck", ...flags])
        ])
        expect(held.code, held.stderr).toBe(0)
        expect(row(held.stdout, "stuck")).toMatch(/^stuck\s+crashed-worker\s+\d+\s+expired 32\.0s ago\s+1m02s$/)
        expect(row(held.stdout, "busy")).toMatch(/^busy\s+worker-b\s+\d+\s+8m58s left\s+1m02s$/)
        expect(expired.stdout.split("\n").slice(1).map((line) => line.split(/\s+/)[0])).toEqual(["stuck"])
        const listed = JSON.parse(json.stdout)
        expect(listed.now).toBe(new Date(start + 62_000).toISOString())
        expect(listed.locks.map((lock: any) => [lock.name, lock.held, lock.state, lock.leaseRemainingMs])).toEqual([
          ["busy", true, "held", 538_000],
          ["stuck", true, "expired", -32_000]
        ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))))
        expect(listed.locks.find((lock: any) => lock.name === "stuck").takeoverAt).toBe(
          new Date(start + 40_000).toISOString()
        )
        expect(inspected.code, inspected.stderr).toBe(0)
        expect(inspected.stdout).toMatch(
          /^state\s+expired: the lease ran out 32\.0s ago \(the holder stopped renewing\?\); the next acquirer takes/m
        )
        expect(inspected.stdout).toMatch(/^lease\s+30\.0s, until 2026-11-28T12:00:30\.000Z \(expired 32\.0s ago\)$/m)
      }),
    60_000
  )
})
