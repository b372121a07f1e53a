/**
 * `leasehold` as a subprocess against one dynalite for the whole file: every command, `--json` parsed, a force
 * release seen by a holder in this process as a lost lock, and the errors an operator meets.
 *
 * Real time throughout (the CLI is another process); leases are short so that a holder notices a force release
 * within a second, and the test awaits that status change rather than sleeping.
 */
import { expect, layer } from "@effect/vitest"
import { DynamoLockStore, DynamoLockTable } from "@leasehold/dynamodb"
import { Lock } from "@leasehold/lock"
import type { LockLost } from "@leasehold/lock/LockError"
import * as DynamoServer from "@leasehold/testing/DynamoServer"
import { Effect, Exit, Fiber, Layer, Option, Scope } from "effect"
import { readFileSync } from "node:fs"
import * as Cli from "../src/Cli.js"
import * as Color from "../src/internal/color.js"
import { CliBundleLive, hasScript, holdLock, run, runInTerminal, start, unique } from "./support.js"

const TestLive = Layer.mergeAll(DynamoServer.layerDynalite, CliBundleLive)

/** Flags that point the CLI at the test server. */
const endpoint = Effect.map(DynamoServer.DynamoServer, (server) => ["--endpoint", server.clientConfig.endpoint])

/** A fresh table on the test server, made through the library (the CLI's `table create` has its own test). */
const makeTable = Effect.gen(function*() {
  const server = yield* DynamoServer.DynamoServer
  const tableName = unique("locks")
  yield* DynamoLockTable.createTable({ tableName, clientConfig: server.clientConfig })
  return tableName
})

/**
 * Holds `name` from this process in a forked fiber (a lost lease interrupts the fiber that acquired it, and that
 * must not be the test) until the test's scope closes. Returns the lease.
 */
const hold = (tableName: string, name: string, options: Lock.LockOptions = {}, prefix?: string) =>
  Effect.gen(function*() {
    const server = yield* DynamoServer.DynamoServer
    const store = yield* DynamoLockStore.make({
      tableName,
      clientConfig: server.clientConfig,
      clockSkewGuard: false,
      ...(prefix === undefined ? {} : { prefix })
    })
    return yield* holdLock(store, name, { lease: "1 second", ...options })
  })

const timeout = 60_000

/** Every command of the tree, as `leasehold --help` must list them. */
const commandNames = ["table create", "table check", "list", "inspect", "release", "watch"]

const packageVersion = (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
  version: string
}).version

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

layer(TestLive, { timeout: "60 seconds", excludeTestServices: true })("leasehold", (it) => {
  it.effect(
    "--help on every command prints the command's own help, as the CLI writes it, and exits 0",
    () =>
      Effect.gen(function*() {
        const commands = [[], ["table"], ["table", "create"], ["table", "check"], ["list"], ["inspect"], ["release"], [
          "watch"
        ]]
        const results = yield* Effect.forEach(commands, (command) => run([...command, "--help"]), { concurrency: 2 })
        results.forEach((result, i) => {
          const command = commands[i] ?? []
          expect(result.code, `leasehold ${command.join(" ")} --help`).toBe(0)
          expect(result.stdout).toBe(`${Color.strip(Cli.helpFor([...command, "--help"]) ?? "")}\n`)
          expect(result.stdout.split("\n")[0]).toBe(
            command.length === 0 ? `leasehold ${packageVersion}` : `leasehold ${command.join(" ")}`
          )
          expect(result.stdout).toContain("EXIT CODES")
          expect(result.stdout).not.toContain("A user-defined piece of text")
          if (command.length > 0) expect(result.stdout).toContain(`$ leasehold ${command.join(" ")} `)
          if (command.length > 0 && command.join(" ") !== "table") {
            expect(result.stdout).toMatch(/^ {2}-t, --table TABLE {2,}The lock table's name/m)
          }
        })
        expect(results[0]?.stdout).toMatch(/^ {2}3 {2}lock or semaphore not found/m)
        const [unknown, flagsFirst] = yield* Effect.all([run(["bogus", "--help"]), run(["--table", "x", "--help"])])
        expect(unknown.code).toBe(2)
        expect(unknown.stderr).toContain(
          `leasehold: no command "bogus": the commands are table create, table check, list`
        )
        expect(flagsFirst.code).toBe(2)
        expect(flagsFirst.stderr).toContain("leasehold: name the command before its flags")
      }),
    timeout
  )

  it.effect(
    "--help lists every command with what it does in a line, and --version prints the version alone",
    () =>
      Effect.gen(function*() {
        const [help, version] = yield* Effect.all([run(["--help"]), run(["--version"])], { concurrency: 2 })
        expect(help.code).toBe(0)
        const lines = help.stdout.split("\n")
        expect(Cli.summaries.map(([command]) => command)).toEqual(commandNames)
        for (const [command, summary] of Cli.summaries) {
          expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^ +${command} {2,}${escape(summary)}$`)))
        }
        expect(lines.filter((line) => /\s$/.test(line))).toEqual([])
        expect(version.code).toBe(0)
        expect(version.stdout).toBe(`${packageVersion}\n`)
      }),
    timeout
  )

  it.effect(
    "--help is plain text when stdout is not a terminal, unless FORCE_COLOR asks for styles",
    () =>
      Effect.gen(function*() {
        const esc = "\x1b["
        const [piped, forced, forcedOff] = yield* Effect.all([
          run(["--help"]),
          run(["list", "--help"], { FORCE_COLOR: "1" }),
          run(["--help"], { FORCE_COLOR: "0" })
        ], { concurrency: 2 })
        expect(piped.code).toBe(0)
        expect(piped.stdout).toContain("EXIT CODES")
        expect(piped.stdout).not.toContain(esc)
        expect(forced.stdout).toContain(esc)
        expect(forcedOff.stdout).not.toContain(esc)
      }),
    timeout
  )

  it.effect.skipIf(!hasScript)("--help on a terminal is styled, and plain with NO_COLOR", () =>
    Effect.gen(function*() {
      const esc = "\x1b["
      const styled = yield* runInTerminal(["--help"], "no prompt", "")
      const plain = yield* runInTerminal(["--help"], "no prompt", "", { NO_COLOR: "1" })
      expect(styled.code).toBe(0)
      expect(styled.stdout).toContain(esc)
      expect(plain.code).toBe(0)
      expect(plain.stdout).toContain("EXIT CODES")
      expect(plain.stdout).not.toContain(esc)
    }), timeout)

  it.effect(
    "table create makes an on-demand table, is a no-op the second time, and table check then passes on dynalite",
    () =>
      Effect.gen(function*() {
        const flags = [...yield* endpoint, "--table", unique("created")]
        const first = yield* run(["table", "create", ...flags])
        expect(first.code).toBe(0)
        expect(first.stdout).toContain("created table")
        expect(first.stdout).toContain("on-demand")
        const second = yield* run(["table", "create", ...flags])
        expect(second.code).toBe(0)
        expect(second.stdout).toContain("already exists")

        // dynalite can not turn TTL on: check passes and says so as a warning (a table whose TTL is off on a server
        // that has it is a problem: see ttl.test.ts).
        const [check, text, ignoring] = yield* Effect.all([
          run(["table", "check", ...flags, "--json"]),
          run(["table", "check", ...flags]),
          run(["table", "check", ...flags, "--ignore-ttl"])
        ], { concurrency: 2 })
        expect(check.code, check.stdout).toBe(0)
        const report = JSON.parse(check.stdout)
        expect(report.ok).toBe(true)
        expect(report.problems).toEqual([])
        expect(report.warnings.map((w: { warning: string }) => w.warning)).toEqual(["TtlUnsupported"])
        expect(text.code).toBe(0)
        expect(text.stdout).toContain("is ready for locks")
        expect(text.stdout).toContain("warning: TTL: not supported by this server")
        expect(ignoring.code).toBe(0)
        expect(ignoring.stdout).toContain("is ready for locks")
      }),
    timeout
  )

  it.effect(
    "a missing table: table check says to create it, list fails with a clear message, and the fix they name runs",
    () =>
      Effect.gen(function*() {
        const tableName = unique("no-such-table")
        const flags = [...yield* endpoint, "--table", tableName]
        const [check, list] = yield* Effect.all([run(["table", "check", ...flags]), run(["list", ...flags])], {
          concurrency: 2
        })
        expect(check.code).toBe(1)
        expect(check.stdout).toContain("TableMissing")
        expect(check.stdout).toContain("leasehold table create")
        expect(list.code).toBe(1)
        expect(list.stderr).toMatch(/^leasehold: .*no-such-table/m)
        expect(list.stderr).not.toMatch(/\n\s+at /) // no stack trace

        // Both messages quote the command to run; an operator copies it, so the CLI must accept it as it is.
        const hints = [check.stdout, list.stderr].map((output) => /`(leasehold table create[^`]*)`/.exec(output)?.[1])
        expect(hints).toEqual([
          `leasehold table create --table ${tableName}`,
          `leasehold table create --table ${tableName}`
        ])
        const created = yield* run([...(hints[0] ?? "").split(" ").slice(1), ...yield* endpoint])
        expect(created.code, created.stderr).toBe(0)
        expect(created.stdout).toContain(`created table "${tableName}"`)
        expect((yield* run(["table", "check", "--ignore-ttl", ...flags])).code).toBe(0)
      }),
    timeout
  )

  it.effect(
    "no credentials: the message says what a CLI user sets (AWS_PROFILE, access keys, a local endpoint), no code option",
    () =>
      Effect.gen(function*() {
        // A profile that does not exist, no credential files, and no instance metadata: the SDK's chain finds nothing
        // and sends nothing (the endpoint is the local test server in any case).
        const result = yield* run(["list", ...yield* endpoint, "--table", yield* makeTable], {
          AWS_PROFILE: "leasehold-test-no-such-profile",
          AWS_CONFIG_FILE: "/nonexistent/leasehold-test/config",
          AWS_SHARED_CREDENTIALS_FILE: "/nonexistent/leasehold-test/credentials",
          AWS_EC2_METADATA_DISABLED: "true"
        })
        expect(result.code, result.stderr).toBe(2)
        expect(result.stderr).toMatch(/^leasehold: no AWS credentials found \(/)
        expect(result.stderr).toContain("set AWS_PROFILE to a profile of ~/.aws/config")
        expect(result.stderr).toContain("set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
        expect(result.stderr).toContain("pass --endpoint http://127.0.0.1:PORT with neither AWS_PROFILE nor")
        expect(result.stderr).toContain("or try --local")
        expect(result.stderr).not.toContain("clientConfig")
        expect(result.stderr.trim().split("\n")).toHaveLength(1)
      }),
    timeout
  )

  it.effect(
    "usage errors exit 2 with a message: unknown flag, bad interval/limit/cursor, no table, release without --force",
    () =>
      Effect.gen(function*() {
        const flags = [...yield* endpoint, "--table", yield* makeTable]
        const [unknownFlag, badInterval, noTable, noForce, badLimit, badCursor] = yield* Effect.all([
          run(["list", ...flags, "--bogus"]),
          run(["watch", ...flags, "--interval", "soon"]),
          run(["list", ...(yield* endpoint)]),
          run(["release", "some-lock", ...flags]),
          run(["list", ...flags, "--limit", "0"]),
          run(["list", ...flags, "--cursor", "garbage"])
        ], { concurrency: 2 })
        expect(unknownFlag.code).toBe(2)
        expect(unknownFlag.stderr).toContain("--bogus")
        expect(badInterval.code).toBe(2)
        expect(badInterval.stderr).toContain("is not a positive duration")
        expect(noTable.code).toBe(2)
        expect(noTable.stderr).toContain("pass --table NAME or set LEASEHOLD_TABLE")
        expect(noForce.code).toBe(2)
        expect(noForce.stderr).toContain("pass --force")
        expect(badLimit.code).toBe(2)
        expect(badLimit.stderr).toContain("--limit must be 1 or more")
        expect(badCursor.code).toBe(2)
        expect(badCursor.stderr).toContain("cursor \"garbage\" is malformed")
        // A table name DynamoDB would refuse, caught before any request by both table commands.
        for (const command of ["create", "check"]) {
          const badTable = yield* run(["table", command, ...(yield* endpoint), "--table", "ab"])
          expect(badTable.code).toBe(2)
          expect(badTable.stderr).toContain(`--table: table name "ab" is not a DynamoDB table name`)
        }
      }),
    timeout
  )

  it.scoped(
    "list shows holders (text and --json), pages with --limit/--cursor, and reads the environment",
    () =>
      Effect.gen(function*() {
        const tableName = yield* makeTable
        yield* hold(tableName, "orders/1", { holder: "worker-a", lease: "30 seconds" })
        yield* hold(tableName, "orders/2", { holder: "worker-b", lease: "30 seconds" })
        yield* hold(tableName, "orders/3", { holder: "other-app", lease: "30 seconds" }, "other/")
        const flags = [...yield* endpoint, "--table", tableName]

        const [text, json, firstPage, prefixed] = yield* Effect.all([
          run(["list", ...flags]),
          run(["list", "--json"], {
            LEASEHOLD_TABLE: tableName,
            DYNAMODB_ENDPOINT: (yield* endpoint)[1]!
          }),
          run(["list", ...flags, "--json", "--limit", "1"]),
          run(["list", ...flags, "--json", "--prefix", "other/"])
        ], { concurrency: 2 })
        expect(text.code).toBe(0)
        expect(text.stdout).toMatch(/NAME\s+HOLDER\s+FENCE\s+LEASE\s+AGE/)
        expect(text.stdout).toMatch(/orders\/1\s+worker-a\s+\d+\s+\d+\.\ds left/)

        expect(json.code).toBe(0)
        const listed = JSON.parse(json.stdout)
        expect(listed.table).toBe(tableName)
        expect(listed.cursor).toBeNull()
        const byName = new Map<string, any>(listed.locks.map((lock: any) => [lock.name, lock]))
        // Without --prefix, the locks of stores without one: the other application's lock belongs to its prefix.
        expect([...byName.keys()].sort()).toEqual(["orders/1", "orders/2"])
        expect(JSON.parse(prefixed.stdout).locks.map((lock: any) => [lock.name, lock.holder])).toEqual([
          ["orders/3", "other-app"]
        ])
        expect(byName.get("orders/2")).toMatchObject({
          held: true,
          state: "held",
          holder: "worker-b",
          leaseMs: 30_000,
          expired: false
        })
        expect(byName.get("orders/2").fence).toBeGreaterThan(0)
        expect(byName.get("orders/2").leaseRemainingMs).toBeGreaterThan(0)
        expect(byName.get("orders/2").ageMs).toBeGreaterThanOrEqual(0)

        const page = JSON.parse(firstPage.stdout)
        expect(page.locks).toHaveLength(1)
        expect(typeof page.cursor).toBe("string")
        const secondPage = yield* run(["list", ...flags, "--json", "--cursor", page.cursor])
        const rest = JSON.parse(secondPage.stdout)
        expect([...page.locks, ...rest.locks].map((lock: any) => lock.name).sort()).toEqual(["orders/1", "orders/2"])
      }),
    timeout
  )

  it.scoped(
    "inspect shows one lock with its JSON data pretty-printed; --json decodes it; a missing name exits 3",
    () =>
      Effect.gen(function*() {
        const tableName = yield* makeTable
        const lease = yield* hold(tableName, "report", {
          holder: "nightly",
          lease: "30 seconds",
          data: JSON.stringify({ job: "nightly-report", attempt: 2 })
        })
        const flags = [...yield* endpoint, "--table", tableName]
        const [text, json, missing] = yield* Effect.all([
          run(["inspect", "report", ...flags]),
          run(["inspect", "report", ...flags, "--json"]),
          run(["inspect", "nope", ...flags])
        ], { concurrency: 2 })
        expect(text.code).toBe(0)
        expect(text.stdout).toMatch(/holder\s+nightly/)
        expect(text.stdout).toMatch(new RegExp(`fence\\s+${lease.fence}`))
        expect(text.stdout).toContain("  \"job\": \"nightly-report\"")
        const inspected = JSON.parse(json.stdout)
        expect(inspected).toMatchObject({ name: "report", holder: "nightly", owner: lease.owner, fence: lease.fence })
        expect(inspected.dataJson).toEqual({ job: "nightly-report", attempt: 2 })
        expect(missing.code).toBe(3)
        expect(missing.stderr).toContain("no lock named \"nope\"")
      }),
    timeout
  )

  it.scoped(
    "release --force --yes removes the holder, which then loses the lock as freed",
    () =>
      Effect.gen(function*() {
        const tableName = yield* makeTable
        const lease = yield* hold(tableName, "stuck", { holder: "victim", lease: "1 second" })
        const flags = [...yield* endpoint, "--table", tableName]

        // No terminal to ask on: refuse rather than hang, and change nothing.
        const unconfirmed = yield* run(["release", "stuck", "--force", ...flags])
        expect(unconfirmed.code).toBe(2)
        expect(unconfirmed.stderr).toContain("pass --yes")
        expect(yield* lease.isHeld).toBe(true)

        const released = yield* run(["release", "stuck", "--force", "--yes", ...flags, "--json"])
        expect(released.code).toBe(0)
        const removed = JSON.parse(released.stdout).removed
        expect(removed).toMatchObject({ holder: "victim", owner: lease.owner, fence: lease.fence })

        const lost: LockLost = yield* Effect.flip(lease.lost).pipe(Effect.timeout("10 seconds"))
        expect([lost.reason, lost.name, lost.by]).toEqual(["freed", "stuck", undefined])
        expect(lost.message).toContain("the store shows it free")

        const again = yield* run(["release", "stuck", "--force", "--yes", ...flags])
        expect(again.code).toBe(3)
        expect(again.stderr).toContain("is not held")
      }),
    timeout
  )

  it.scoped(
    "release --force whose answer is lost says that the outcome is unknown and where the lock stands, and exits 5",
    () =>
      Effect.gen(function*() {
        const server = yield* DynamoServer.DynamoServer
        const tableName = yield* makeTable
        // Held through the server's own address, so that only the CLI's requests pass the proxy.
        const direct = yield* DynamoLockStore.make({
          tableName,
          clientConfig: { ...server.clientConfig, endpoint: server.serverEndpoint },
          clockSkewGuard: false
        })
        const acquired = yield* direct.tryAcquire({
          name: "stuck",
          owner: unique("owner"),
          holder: "victim",
          leaseMs: 60_000,
          data: undefined,
          takeover: { _tag: "Absolute", maxClockSkewMs: 10_000 }
        })
        if (acquired._tag !== "Acquired") return yield* Effect.dieMessage(`not acquired: ${acquired._tag}`)
        const { fence } = acquired.record

        // Every request and answer of the CLI waits at the proxy and is let through alone, up to the force release's
        // UpdateItem: it reaches the server, and the pause that follows at once holds its answer.
        yield* server.resetRequests
        yield* server.pause
        yield* Effect.addFinalizer(() => server.resume)
        const cli = yield* Effect.fork(
          run(["release", "stuck", "--force", "--yes", ...yield* endpoint, "--table", tableName])
        )
        let sent = false
        while (!sent) {
          yield* server.awaitPending(1)
          sent = ((yield* server.requests).get("UpdateItem") ?? 0) > 0
          yield* Effect.zipRight(server.resume, server.pause)
        }
        // The CLI gives up on the answer (its request timeout) and retries: from here on, all goes through.
        while (((yield* server.requests).get("UpdateItem") ?? 0) < 2) yield* Effect.sleep("10 millis")
        yield* server.resume
        const released = yield* Fiber.join(cli)

        // The first attempt removed the holder; the retry can not tell that from the holder's own release.
        expect(Option.getOrThrow(yield* direct.inspect("stuck")).owner).toBeUndefined()
        expect(released.code).toBe(5)
        expect(released.stdout).toBe("")
        expect(released.stderr).toContain("outcome unknown: the release of \"stuck\" (held by victim")
        expect(released.stderr).toContain(
          `the lock is free now (fence ${fence}): that holder is gone, removed by this release or released by itself`
        )
        expect(released.stderr).not.toContain("nothing to do")
      }),
    timeout
  )

  it.scoped(
    "watch --count prints a plain snapshot when stdout is not a terminal and stops after N refreshes",
    () =>
      Effect.gen(function*() {
        const tableName = yield* makeTable
        yield* hold(tableName, "watched", { holder: "watcher-test", lease: "30 seconds" })
        const flags = [...yield* endpoint, "--table", tableName]
        const result = yield* run(["watch", ...flags, "--count", "2", "--interval", "100ms"])
        expect(result.code).toBe(0)
        expect(result.stdout).toMatch(/snapshot name="watched" holder="watcher-test" fence=\d+ remaining=/)
      }),
    timeout
  )

  it.scoped("watch reports a release and a new acquisition as they happen", () =>
    Effect.gen(function*() {
      const tableName = yield* makeTable
      const holding = yield* Scope.make()
      yield* hold(tableName, "moving", { holder: "first", lease: "30 seconds" }).pipe(Scope.extend(holding))
      const watch = yield* start(["watch", ...yield* endpoint, "--table", tableName, "--interval", "200ms"])
      yield* watch.awaitLine(/snapshot name="moving" holder="first"/)

      yield* Scope.close(holding, Exit.void)
      yield* watch.awaitLine(/released "moving" \(was first/)
      yield* hold(tableName, "moving", { holder: "second", lease: "30 seconds" })
      yield* watch.awaitLine(/acquired "moving" by second/)
    }).pipe(Effect.timeout("30 seconds")), timeout)

  // On a terminal, release asks first: "n" changes nothing (exit 4), "y" releases.
  it.scoped.skipIf(!hasScript)("release --force on a terminal asks for confirmation", () =>
    Effect.gen(function*() {
      const tableName = yield* makeTable
      const lease = yield* hold(tableName, "asked", { holder: "patient", lease: "30 seconds" })
      const args = ["release", "asked", "--force", ...yield* endpoint, "--table", tableName]

      const declined = yield* runInTerminal(args, "Force-release", "n")
      expect(declined.code).toBe(4)
      expect(declined.stdout).toContain("held by patient")
      expect(declined.stdout).toContain("cancelled")
      expect(yield* lease.isHeld).toBe(true)

      const confirmed = yield* runInTerminal(args, "Force-release", "y")
      expect(confirmed.code).toBe(0)
      expect(confirmed.stdout).toContain("released \"asked\": removed holder patient")
    }).pipe(Effect.timeout("30 seconds")), timeout)

  it.scoped.skipIf(!hasScript)("watch on a terminal redraws a table of locks", () =>
    Effect.gen(function*() {
      const tableName = yield* makeTable
      yield* hold(tableName, "shown", { holder: "on-screen", lease: "30 seconds" })
      const args = ["watch", ...yield* endpoint, "--table", tableName, "--count", "2", "--interval", "100ms"]
      const result = yield* runInTerminal(args, "no prompt", "")
      expect(result.code).toBe(0)
      expect(result.stdout.split("\x1b[H\x1b[2J")).toHaveLength(3) // the screen is cleared before each refresh
      expect(result.stdout).toContain(`leasehold watch: table "${tableName}"`)
      expect(result.stdout).toMatch(/shown\s+on-screen\s+\d+\s+\d/)
    }).pipe(Effect.timeout("30 seconds")), timeout)
})
