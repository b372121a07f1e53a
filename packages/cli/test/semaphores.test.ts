/**
 * `leasehold` and semaphores, against one dynalite for the file: `list` shows them, `inspect --semaphore` shows one
 * with its holders, `release --semaphore --owner` removes one holder's permits (a dead one's, or a live one's, which
 * then loses them), and `watch` reports their changes.
 *
 * A dead holder is made with the store's own acquiring write and a lease of a millisecond, never renewed: by the time
 * the CLI (another process) reads it, its lease has run out. Everything else holds its permits with a heartbeat.
 */
import { expect, layer } from "@effect/vitest"
import { DynamoLockTable } from "@leasehold/dynamodb"
import type { LockLost } from "@leasehold/lock/LockError"
import * as DynamoServer from "@leasehold/testing/DynamoServer"
import { Effect, Exit, Layer, Scope } from "effect"
import {
  CliBundleLive,
  hasScript,
  holdLock,
  holdPermits,
  holdReadWrite,
  run,
  runInTerminal,
  start,
  storeOn,
  unique
} from "./support.js"

const TestLive = Layer.mergeAll(DynamoServer.layerDynalite, CliBundleLive)

const timeout = 60_000

/** A fresh lock table, a store on it, and the flags that point the CLI there. */
const makeTable = Effect.gen(function*() {
  const server = yield* DynamoServer.DynamoServer
  const tableName = unique("semaphores")
  yield* DynamoLockTable.createTable({ tableName, clientConfig: server.clientConfig })
  const store = yield* storeOn(server.clientConfig, tableName)
  return { tableName, store, flags: ["--endpoint", server.clientConfig.endpoint, "--table", tableName] }
})

/** A holder that took `permits` and died: its lease, of a millisecond, is over before anyone looks. */
const deadHolder = (
  store: Effect.Effect.Success<typeof makeTable>["store"],
  name: string,
  options: { readonly limit: number; readonly permits: number; readonly create: boolean; readonly readWrite?: true }
) =>
  Effect.gen(function*() {
    const owner = unique("dead-owner")
    const result = yield* store.tryAcquirePermits({
      name,
      owner,
      holder: "crashed-worker",
      limit: options.limit,
      permits: options.permits,
      leaseMs: 1,
      data: JSON.stringify({ job: 7 }),
      takeover: { _tag: "Absolute", maxClockSkewMs: 0 },
      expired: [],
      create: options.create,
      readWrite: options.readWrite
    })
    expect(result._tag).toBe("Acquired")
    return owner
  })

layer(TestLive, { timeout: "60 seconds", excludeTestServices: true })("leasehold and semaphores", (it) => {
  it.scoped(
    "list shows semaphores beside locks: limit, permits in use and holders, in text and --json",
    () =>
      Effect.gen(function*() {
        const { flags, store } = yield* makeTable
        yield* holdLock(store, "orders/1", { holder: "worker-a", lease: "30 seconds" })
        yield* deadHolder(store, "partner-api", { limit: 4, permits: 1, create: true })
        yield* holdPermits(store, "partner-api", { limit: 4, permits: 2, holder: "worker-b", lease: "30 seconds" })
        yield* holdPermits(store, "idle", { limit: 1, holder: "short-lived", lease: "30 seconds" }).pipe(
          Effect.scoped
        )

        const [text, noSkew, json, held] = yield* Effect.all([
          run(["list", ...flags]),
          run(["list", ...flags, "--max-clock-skew", "0"]),
          run(["list", ...flags, "--json"]),
          run(["list", ...flags, "--json", "--held"])
        ], { concurrency: 2 })
        expect(text.code, text.stderr).toBe(0)
        expect(text.stdout).toMatch(/orders\/1\s+worker-a/)
        expect(text.stdout).toMatch(/SEMAPHORE\s+USED\s+LIMIT\s+HOLDERS/)
        // The dead holder's lease ran out a moment ago: within the default skew bound no acquirer removes it yet.
        expect(text.stdout).toMatch(/partner-api\s+3\s+4\s+crashed-worker \(1, expiring\), worker-b \(2\)/)
        expect(noSkew.stdout).toMatch(/partner-api\s+3\s+4\s+crashed-worker \(1, expired\), worker-b \(2\)/)
        expect(text.stdout).toMatch(/idle\s+0\s+1\s+-/)

        expect(json.code).toBe(0)
        const listed = JSON.parse(json.stdout)
        expect(listed.locks.map((lock: any) => lock.name)).toEqual(["orders/1"])
        const byName = new Map<string, any>(listed.semaphores.map((semaphore: any) => [semaphore.name, semaphore]))
        expect([...byName.keys()].sort()).toEqual(["idle", "partner-api"])
        expect(byName.get("partner-api")).toMatchObject({ limit: 4, used: 3, available: 1 })
        expect(
          byName.get("partner-api").holders.map((
            holder: any
          ) => [holder.holder, holder.permits, holder.expired, holder.state])
        ).toEqual([["crashed-worker", 1, true, "expiring"], ["worker-b", 2, false, "held"]])
        expect(byName.get("idle")).toMatchObject({ limit: 1, used: 0, holders: [] })
        expect(JSON.parse(held.stdout).semaphores.map((semaphore: any) => semaphore.name)).toEqual(["partner-api"])
      }),
    timeout
  )

  it.scoped("list pages through locks and semaphores together with --limit and --cursor", () =>
    Effect.gen(function*() {
      const { flags, store } = yield* makeTable
      yield* holdLock(store, "a-lock", { lease: "30 seconds" })
      yield* holdPermits(store, "b-semaphore", { limit: 2, lease: "30 seconds" })
      yield* holdPermits(store, "c-semaphore", { limit: 2, lease: "30 seconds" })
      const names: Array<string> = []
      let cursor: string | null = null
      for (let page = 0; page < 4 && (page === 0 || cursor !== null); page++) {
        const result = yield* run([
          "list",
          ...flags,
          "--json",
          "--limit",
          "1",
          ...(cursor === null ? [] : ["--cursor", cursor])
        ])
        expect(result.code, result.stderr).toBe(0)
        const listed = JSON.parse(result.stdout)
        names.push(...listed.locks.map((lock: any) => lock.name), ...listed.semaphores.map((s: any) => s.name))
        cursor = listed.cursor
      }
      expect(names.sort()).toEqual(["a-lock", "b-semaphore", "c-semaphore"])
    }), timeout)

  it.scoped(
    "inspect --semaphore shows each holder: holder, owner, permits, fence, lease until and whether it expired",
    () =>
      Effect.gen(function*() {
        const { flags, store } = yield* makeTable
        const dead = yield* deadHolder(store, "partner-api", { limit: 4, permits: 1, create: true })
        const live = yield* holdPermits(store, "partner-api", {
          limit: 4,
          permits: 2,
          holder: "worker-b",
          lease: "30 seconds",
          data: JSON.stringify({ batch: "b-17" })
        })
        const [text, json] = yield* Effect.all([
          run(["inspect", "--semaphore", "partner-api", ...flags]),
          run(["inspect", "partner-api", "--semaphore", ...flags, "--json"])
        ], { concurrency: 2 })
        expect(text.code, text.stderr).toBe(0)
        expect(text.stdout).toMatch(/semaphore\s+partner-api/)
        expect(text.stdout).toMatch(/permits\s+3 of 4 in use \(1 free\)/)
        expect(text.stdout).toMatch(/HOLDER\s+OWNER\s+PERMITS\s+FENCE\s+LEASE UNTIL\s+LEASE\s+AGE/)
        expect(text.stdout).toMatch(
          new RegExp(`crashed-worker\\s+${dead}\\s+1\\s+\\d+\\s+\\S+Z\\s+expiring: ran out \\d`)
        )
        expect(text.stdout).toContain("expiring: the holder's lease ran out less than the clock-skew bound (10.0s) ago")
        expect(text.stdout).toMatch(new RegExp(`worker-b\\s+${live.owner}\\s+2\\s+${live.fence}\\s+\\S+Z\\s+\\d`))
        expect(text.stdout).toContain(`data of worker-b (fence ${live.fence})\n  {\n    "batch": "b-17"`)

        expect(json.code).toBe(0)
        const inspected = JSON.parse(json.stdout)
        expect(inspected).toMatchObject({ name: "partner-api", limit: 4, used: 3, available: 1 })
        expect(inspected.holders[0]).toMatchObject({
          holder: "crashed-worker",
          owner: dead,
          permits: 1,
          expired: true,
          state: "expiring"
        })
        expect(inspected.holders[1]).toMatchObject({
          holder: "worker-b",
          owner: live.owner,
          permits: 2,
          fence: live.fence,
          expired: false,
          dataJson: { batch: "b-17" }
        })
        expect(Date.parse(inspected.holders[1].leaseUntil)).toBeGreaterThan(Date.now())
      }),
    timeout
  )

  it.scoped(
    "inspect tells a lock from a semaphore of the same name, and says where the other one is",
    () =>
      Effect.gen(function*() {
        const { flags, store } = yield* makeTable
        yield* holdPermits(store, "only-semaphore", { limit: 2, lease: "30 seconds" })
        yield* holdLock(store, "only-lock", { lease: "30 seconds" })
        yield* holdLock(store, "both", { holder: "lock-holder", lease: "30 seconds" })
        yield* holdPermits(store, "both", { limit: 2, holder: "permit-holder", lease: "30 seconds" })
        const [asLock, asSemaphore, neither, bothLock, bothSemaphore] = yield* Effect.all([
          run(["inspect", "only-semaphore", ...flags]),
          run(["inspect", "--semaphore", "only-lock", ...flags]),
          run(["inspect", "--semaphore", "nothing", ...flags]),
          run(["inspect", "both", ...flags, "--json"]),
          run(["inspect", "both", "--semaphore", ...flags, "--json"])
        ], { concurrency: 2 })
        expect(asLock.code).toBe(3)
        expect(asLock.stderr).toContain("no lock named \"only-semaphore\"")
        expect(asLock.stderr).toContain(
          "there is a semaphore of that name: `leasehold inspect --semaphore only-semaphore`"
        )
        expect(asSemaphore.code).toBe(3)
        expect(asSemaphore.stderr).toContain("there is a lock of that name: `leasehold inspect only-lock`")
        expect(neither.code).toBe(3)
        expect(neither.stderr).toContain("no semaphore named \"nothing\"")
        expect(neither.stderr).toContain("`leasehold list` shows the names there")
        expect(JSON.parse(bothLock.stdout).holder).toBe("lock-holder")
        expect(JSON.parse(bothSemaphore.stdout).holders[0].holder).toBe("permit-holder")
      }),
    timeout
  )

  it.scoped(
    "release --semaphore --owner removes a dead holder's permits; a live holder loses its own",
    () =>
      Effect.gen(function*() {
        const { flags, store } = yield* makeTable
        const dead = yield* deadHolder(store, "partner-api", { limit: 2, permits: 1, create: true })
        const live = yield* holdPermits(store, "partner-api", { limit: 2, holder: "worker-b", lease: "1 second" })
        const args = ["release", "partner-api", "--semaphore", ...flags]

        const removed = yield* run([...args, "--owner", dead, "--force", "--yes", "--json"])
        expect(removed.code, removed.stderr).toBe(0)
        expect(JSON.parse(removed.stdout)).toMatchObject({
          released: true,
          semaphore: "partner-api",
          removed: { holder: "crashed-worker", owner: dead, permits: 1, expired: true }
        })
        const after = JSON.parse((yield* run(["inspect", "--semaphore", "partner-api", ...flags, "--json"])).stdout)
        expect(after).toMatchObject({ used: 1, holders: [{ owner: live.owner }] })
        expect(yield* live.isHeld).toBe(true)

        const text = yield* run([...args, "--owner", live.owner, "--force", "--yes"])
        expect(text.code, text.stderr).toBe(0)
        expect(text.stdout).toContain(
          `released 1 permit of semaphore "partner-api": removed holder worker-b (owner ${live.owner}`
        )
        const lost: LockLost = yield* Effect.flip(live.lost).pipe(Effect.timeout("10 seconds"))
        expect(lost.name).toBe("partner-api")

        const again = yield* run([...args, "--owner", live.owner, "--force", "--yes"])
        expect(again.code).toBe(3)
        expect(again.stderr).toContain("semaphore \"partner-api\" has no holders")
      }),
    timeout
  )

  it.scoped("release --semaphore refuses what it can not do safely, and changes nothing", () =>
    Effect.gen(function*() {
      const { flags, store } = yield* makeTable
      const live = yield* holdPermits(store, "guarded", { limit: 3, holder: "worker-c", lease: "30 seconds" })
      const args = ["release", "guarded", ...flags]
      const [noForce, noOwner, ownerOnLock, wrongOwner, noYes] = yield* Effect.all([
        run([...args, "--semaphore", "--owner", live.owner]),
        run([...args, "--semaphore", "--force", "--yes"]),
        run([...args, "--owner", live.owner, "--force", "--yes"]),
        run([...args, "--semaphore", "--owner", "nobody", "--force", "--yes"]),
        run([...args, "--semaphore", "--owner", live.owner, "--force"])
      ], { concurrency: 2 })
      expect(noForce.code).toBe(2)
      expect(noForce.stderr).toContain("pass --force")
      expect(noOwner.code).toBe(2)
      expect(noOwner.stderr).toContain(`with --owner; its holders: worker-c (owner ${live.owner}, fence ${live.fence}`)
      expect(ownerOnLock.code).toBe(2)
      expect(ownerOnLock.stderr).toContain("add --semaphore")
      expect(wrongOwner.code).toBe(3)
      expect(wrongOwner.stderr).toContain("has no holder with owner nobody")
      expect(noYes.code).toBe(2)
      expect(noYes.stderr).toContain("pass --yes")
      expect(yield* live.isHeld).toBe(true)
      const inspected = JSON.parse((yield* run(["inspect", "--semaphore", "guarded", ...flags, "--json"])).stdout)
      expect(inspected.holders.map((holder: any) => holder.owner)).toEqual([live.owner])
    }), timeout)

  it.scoped.skipIf(!hasScript)(
    "release --semaphore on a terminal asks as a lock's force release does",
    () =>
      Effect.gen(function*() {
        const { flags, store } = yield* makeTable
        const live = yield* holdPermits(store, "asked", {
          limit: 2,
          permits: 2,
          holder: "patient",
          lease: "30 seconds"
        })
        const args = ["release", "asked", "--semaphore", "--owner", live.owner, "--force", ...flags]

        const declined = yield* runInTerminal(args, "Force-release", "n")
        expect(declined.code).toBe(4)
        expect(declined.stdout).toContain("2 permits of semaphore \"asked\", held by patient")
        expect(declined.stdout).toContain("cancelled")
        expect(yield* live.isHeld).toBe(true)

        const confirmed = yield* runInTerminal(args, "Force-release", "y")
        expect(confirmed.code).toBe(0)
        expect(confirmed.stdout).toContain("released 2 permits of semaphore \"asked\": removed holder patient")
      }).pipe(Effect.timeout("30 seconds")),
    timeout
  )

  it.scoped(
    "watch shows semaphores in its snapshot and reports holders as they come and go",
    () =>
      Effect.gen(function*() {
        const { flags, store } = yield* makeTable
        const first = yield* Scope.make()
        yield* holdPermits(store, "pool", { limit: 3, holder: "first", lease: "30 seconds" }).pipe(Scope.extend(first))
        const watch = yield* start(["watch", ...flags, "--interval", "200ms"])
        yield* watch.awaitLine(/snapshot semaphore name="pool" used=1 limit=3 holders="first \(1\)"/)

        const second = yield* holdPermits(store, "pool", {
          limit: 3,
          permits: 2,
          holder: "second",
          lease: "30 seconds"
        })
        yield* watch.awaitLine(
          new RegExp(`acquired 2 permits of semaphore "pool" by second \\(fence ${second.fence}\\); 3 of 3 in use`)
        )
        yield* Scope.close(first, Exit.void)
        yield* watch.awaitLine(/released 1 permit of semaphore "pool" \(was first \(fence \d+\)\); 2 of 3 in use/)
      }).pipe(Effect.timeout("30 seconds")),
    timeout
  )

  it.scoped(
    "a read/write lock shows as a marked semaphore with each holder's mode, and release takes a dead writer's lease",
    () =>
      Effect.gen(function*() {
        const { flags, store } = yield* makeTable
        yield* holdReadWrite(store, "price-list", "read", { holder: "web-1", lease: "30 seconds" })
        yield* holdReadWrite(store, "price-list", "read", { holder: "web-2", lease: "30 seconds" })
        yield* holdReadWrite(store, "schema", "write", { holder: "migrator", lease: "30 seconds" })

        const [list, inspect, json] = yield* Effect.all([
          run(["list", ...flags]),
          run(["inspect", "schema", "--semaphore", ...flags]),
          run(["inspect", "price-list", "--semaphore", "--json", ...flags])
        ], { concurrency: 2 })
        expect(list.code, list.stderr).toBe(0)
        expect(list.stdout).toMatch(/price-list \(read\/write\)\s+2\s+64\s+web-1 \(read\), web-2 \(read\)/)
        expect(list.stdout).toMatch(/schema \(read\/write\)\s+64\s+64\s+migrator \(write\)/)
        expect(inspect.code, inspect.stderr).toBe(0)
        expect(inspect.stdout).toMatch(/kind\s+read\/write lock, held by a writer/)
        expect(inspect.stdout).toMatch(/migrator\s+\S+\s+64 \(write\)/)
        const shown = JSON.parse(json.stdout)
        expect(shown).toMatchObject({ readWrite: true, used: 2, reservation: null })
        expect(shown.holders.map((holder: any) => [holder.holder, holder.mode])).toEqual([["web-1", "read"], [
          "web-2",
          "read"
        ]])

        // A crashed writer: an operator frees the lock by its owner.
        const owner = yield* deadHolder(store, "stuck", { limit: 64, permits: 64, create: true, readWrite: true })
        const released = yield* run(["release", "stuck", "--semaphore", "--owner", owner, "--force", "--yes", ...flags])
        expect(released.code, released.stderr).toBe(0)
        const after = JSON.parse((yield* run(["inspect", "stuck", "--semaphore", "--json", ...flags])).stdout)
        expect(after).toMatchObject({ readWrite: true, used: 0, holders: [] })
      }),
    timeout
  )
})
