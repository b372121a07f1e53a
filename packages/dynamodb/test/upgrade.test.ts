/**
 * A fleet upgrades one process at a time, so a process of the version before lease sessions shares a table with
 * processes that hold locks under sessions. The earlier version is built from the repository's history (its
 * `core`, `lock` and `dynamodb` sources at `beforeSessions`, as this test's Effect line assembles them), bundled with
 * `fixtures/upgradeWorker.ts` and run as a process of its own, on the same dynalite table as this process.
 *
 * It judges a lease only by the lock's own lease fields, which a lock under a session keeps at
 * `LeaseSession.heldUntil`: whatever its takeover mode, it never takes such a lock over, while the session lives or
 * after it died. A process that knows sessions takes it over once the session is dead.
 *
 * Real time throughout (a process of its own). Only "never acquired" is asserted of the earlier version, which a busy
 * machine can not make false; the current version's takeover is given a generous wait.
 */
import { afterAll, expect, layer } from "@effect/vitest"
import * as LeaseSession from "@leasehold/core/session/LeaseSession"
import { Lock, LockStore } from "@leasehold/lock"
import * as DynamoServer from "@leasehold/testing/DynamoServer"
import { Duration, Effect } from "effect"
import { execFileSync, spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { effectMajor } from "./effectLine.js"
import { acquireRequest, inRealTime, makeStore, makeTable, unique } from "./support.js"

/** The last commit of the repository before lock records could name a lease session. */
const beforeSessions = "2d1822be4e17514240b3b7f938a41da227b58043"

const packageDirectory = fileURLToPath(new URL("..", import.meta.url))
/** The repository's root, whichever line's copy of this test runs. */
const repositoryRoot = execFileSync("git", ["-C", packageDirectory, "rev-parse", "--show-toplevel"], {
  encoding: "utf8"
}).trim()
const worker = fileURLToPath(new URL("./fixtures/upgradeWorker.ts", import.meta.url))

/** The earlier version's sources of `packages`, as this Effect line's packages are assembled from them. */
const earlierSources = (directory: string): void => {
  const packages = ["core", "lock", "dynamodb"].map((name) => `packages/${name}/src`)
  const archive = execFileSync("git", ["-C", repositoryRoot, "archive", "--format=tar", beforeSessions, ...packages], {
    maxBuffer: 64 * 1024 * 1024
  })
  execFileSync("tar", ["-x", "-C", directory], { input: archive })
  // `X.effect4.ts` is the Effect 4 line's `X.ts`; the Effect 3 line leaves it out.
  const files = Fs.readdirSync(directory, { recursive: true, encoding: "utf8" }).filter((file) =>
    file.endsWith(".effect4.ts")
  )
  for (const file of files) {
    const path = Path.join(directory, file)
    if (effectMajor === 4) Fs.renameSync(path, path.replace(/\.effect4\.ts$/, ".ts"))
    else Fs.rmSync(path)
  }
}

/** Bundles the worker with the earlier version's packages in place of the repository's; resolves to the bundle. */
const bundleEarlierWorker = async (directory: string): Promise<string> => {
  earlierSources(directory)
  const esbuild = await import("esbuild")
  const outfile = Path.join(directory, "upgradeWorker.mjs")
  await esbuild.build({
    entryPoints: [worker],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    logLevel: "warning",
    banner: {
      js: "import { createRequire as __leaseholdCreateRequire } from \"node:module\"; " +
        "const require = __leaseholdCreateRequire(import.meta.url);"
    },
    plugins: [{
      name: "earlier-version",
      setup: (build) => {
        // `@leasehold/<package>/<module>` from the earlier sources; everything else bare from this package.
        build.onResolve({ filter: /^@leasehold\/(core|lock|dynamodb)(\/.*)?$/ }, ({ path }) => {
          const [, name, module] = /^@leasehold\/([^/]+)(?:\/(.*))?$/.exec(path)!
          return { path: Path.join(directory, "packages", name!, "src", `${module ?? "index"}.ts`) }
        })
        build.onResolve({ filter: /^[^./]/ }, async ({ importer, kind, path }) => {
          if (!importer.startsWith(directory) || path.startsWith("@leasehold/")) return undefined
          const resolved = await build.resolve(path, { kind, resolveDir: packageDirectory })
          return resolved.errors.length > 0 ? { errors: resolved.errors } : { path: resolved.path }
        })
      }
    }]
  })
  return outfile
}

interface Outcome {
  readonly _tag: string
  readonly message?: string
}

/** Runs the earlier version's worker once; resolves to what it printed. */
const runEarlier = (bundle: string, settings: Record<string, unknown>): Promise<Outcome> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bundle], {
      env: { ...process.env, NODE_OPTIONS: "", LEASEHOLD_UPGRADE_WORKER: JSON.stringify(settings) },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let out = ""
    let err = ""
    child.stdout.on("data", (chunk) => out += String(chunk))
    child.stderr.on("data", (chunk) => err += String(chunk))
    child.on("error", reject)
    child.on("close", () => {
      const line = out.trim().split("\n").at(-1)
      if (line === undefined || line === "") reject(new Error(`the earlier version printed nothing; stderr: ${err}`))
      else resolve(JSON.parse(line) as Outcome)
    })
  })

const sessionLeaseMs = 1_000
const maxClockSkewMs = 200

/** A session of this version, never renewed (its process died), with `lockName` held under it. */
const deadSessionHolding = (store: LockStore.LockStore, lockName: string) =>
  Effect.gen(function*() {
    const id = unique("session")
    const session = yield* store.tryAcquire(
      acquireRequest(LeaseSession.recordName(id), { owner: id, leaseMs: sessionLeaseMs })
    )
    expect(session._tag).toBe("Acquired")
    const held = yield* store.tryAcquire(acquireRequest(lockName, { session: id }))
    expect(held._tag).toBe("Acquired")
    return id
  })

layer(DynamoServer.layerDynalite)("a process of the version before lease sessions, on the same table", (it) => {
  const directory = Fs.mkdtempSync(Path.join(Os.tmpdir(), "leasehold-upgrade-"))
  const bundle = bundleEarlierWorker(directory)
  afterAll(() => Fs.rmSync(directory, { recursive: true, force: true }))

  it.effect(
    "never takes over a lock held under a session, in either takeover mode; this version does once it died",
    () =>
      Effect.gen(function*() {
        const server = yield* DynamoServer.DynamoServer
        const { tableName } = yield* makeTable()
        const store = yield* makeStore(tableName)
        const lockName = unique("upgraded")
        yield* deadSessionHolding(store, lockName)
        const earlier = yield* Effect.promise(() => bundle)
        // Waits far past the session's end, the skew bound and a whole lease of the earlier version's own.
        for (const takeover of ["absolute", "observed"] as const) {
          const outcome = yield* Effect.promise(() =>
            runEarlier(earlier, {
              endpoint: server.clientConfig.endpoint,
              tableName,
              lockName,
              takeover,
              waitMs: 3_000,
              leaseMs: sessionLeaseMs,
              maxClockSkewMs,
              pollIntervalMs: 100
            })
          )
          expect(outcome._tag, JSON.stringify(outcome)).toBe("LockNotAcquired")
          expect(outcome.message).toContain(new Date(LeaseSession.heldUntil).toISOString())
        }
        // This version judges the session dead and takes the lock over.
        const fence = yield* Lock.withLock(lockName, (lease) => Effect.succeed(lease.fence), {
          wait: "20 seconds",
          maxClockSkew: Duration.millis(maxClockSkewMs),
          pollInterval: "100 millis"
        }).pipe(Effect.provideService(LockStore.LockStore, store))
        expect(fence).toBeGreaterThan(0)
        // Released by this version, the lock is the earlier version's to take as before.
        const after = yield* Effect.promise(() =>
          runEarlier(earlier, {
            endpoint: server.clientConfig.endpoint,
            tableName,
            lockName,
            takeover: "absolute",
            waitMs: 3_000,
            leaseMs: sessionLeaseMs,
            maxClockSkewMs,
            pollIntervalMs: 100
          })
        )
        expect(after._tag, JSON.stringify(after)).toBe("Entered")
      }).pipe(Effect.scoped, inRealTime),
    { timeout: 120_000 }
  )
})
