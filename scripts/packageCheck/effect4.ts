/**
 * The package check's part for the Effect 4 line: its tarballs in a fresh app on effect 4, and npm keeping the two
 * lines apart.
 *
 * - The app starts as the line's users start: `npm i effect @leasehold/lock` with no effect version (and the core's
 *   tarball, which the registry would supply); npm must pick effect 4. The line's other packages follow, with their
 *   peer dependencies at the versions the Effect 4 project tests with.
 * - One copy of effect and of each peer, and `npm ls` satisfied.
 * - ESM and CommonJS programs (`smoke.mjs`, `smoke.cjs`, the Effect 3 line's) under Node 22 and 24 on the memory
 *   store, and on an embedded dynalite once the line has `@leasehold/dynamodb` and `@leasehold/testing` (until then it
 *   says so). Under this machine's Node when it is older (Node 20), the memory store only: the packages declare Node
 *   >= 20, while the test kit's `@effect/platform-node` 4 needs Node 22.
 * - Every ```ts block of the line's packages' READMEs in a strict TypeScript app (`nodenext` and `bundler`), checked
 *   by the Effect 4 project's TypeScript (with the DOM library, which effect 4's declarations need, see `appLib`); a
 *   README's Install program, if it has one, with plain node.
 * - The docs' install commands for the line, in that app after its first install (on the effect npm picked), and in
 *   a fresh app for any other effect 4 version the line's range admits.
 * - Mixing the majors fails at the install, with npm's peer-dependency error (ERESOLVE) and nothing installed:
 *   effect 3 with the Effect 4 line's `@leasehold/lock`, and effect 4 with the Effect 3 line's.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { effect4Project, type Manifest, readManifest } from "../publicPackages.js"
import {
  addToApp,
  checkOneCopy,
  copySmokePrograms,
  installedVersion,
  makeApp,
  smoke,
  smokeFiles,
  type Store,
  typeCheck
} from "./apps.js"
import {
  checkInstallCommandsAlone,
  commandsByEffect,
  type InstallCommand,
  runInstallCommands
} from "./installCommands.js"
import type { Packed } from "./packing.js"
import { check, npm, npmFailing, run, step, writeJson } from "./run.js"
import { installProgram, type Snippet, snippets } from "./snippets.js"

const projectModules = Path.join(effect4Project, "node_modules")

/** The Effect 4 project's TypeScript, which the line's declarations are built with. */
const tsc = Path.join(projectModules, "typescript", "bin", "tsc")

/** The version of a package the Effect 4 project installed: what the line is tested with. */
const projectVersion = (name: string): string => readManifest(Path.join(projectModules, name)).version

/**
 * The TypeScript libraries of the Effect 4 app: effect 4's own declarations (its `crypto` modules) name the WebCrypto
 * types `CryptoKey` and `JsonWebKey`, which only TypeScript's DOM library declares (not `@types/node`), so with
 * `skipLibCheck` off an app on effect 4 needs it, whatever it imports.
 */
const appLib = ["ES2022", "DOM"]

/** The Node major from which the line's test kit (and so its dynalite programs) runs. */
const minimumTestKitNode = 22

/** The peer dependencies an app must install for a package: all but the optional ones. */
const requiredPeers = (manifest: Manifest): ReadonlyArray<string> =>
  Object.keys(manifest.peerDependencies ?? {}).filter((name) =>
    manifest.peerDependenciesMeta?.[name]?.optional !== true
  )

const major = (version: string): number => Number(version.replace(/^v/, "").split(".")[0])

export interface Effect4Options {
  readonly scratch: string
  /** Every packed package; the check takes the core, the Effect 4 line and the Effect 3 line's lock. */
  readonly packed: ReadonlyArray<Packed>
  readonly thisNode: string
  readonly otherNodes: ReadonlyArray<string>
  /** The effect 3 version the peer conflict installs. */
  readonly effect3Version: string
  /** The docs' install commands for the line. */
  readonly commands: ReadonlyArray<InstallCommand>
}

export interface Effect4Report {
  readonly summary: ReadonlyArray<string>
  /** Where the docs' install commands ran, and how many. */
  readonly installs: ReadonlyArray<string>
}

/**
 * `npm i effect@<version> <core> <lock>` in an empty app must fail with npm's ERESOLVE alone, naming the conflict
 * between the app's effect and the lock's peer range, and leave nothing installed.
 */
const checkPeerConflict = (scratch: string, core: Packed, lock: Packed, effectVersion: string): string => {
  const what = `effect ${effectVersion} with ${lock.package.label} ${lock.package.version}`
  const app = Path.join(scratch, `conflict-effect${major(effectVersion)}-${lock.package.line}`)
  step(`peer conflict: installing ${what} must fail with npm's ERESOLVE`)
  Fs.mkdirSync(app, { recursive: true })
  const manifest = { name: Path.basename(app), private: true, type: "module" }
  writeJson(Path.join(app, "package.json"), manifest)
  const { stderr } = npmFailing(
    ["install", "--prefer-offline", `effect@${effectVersion}`, core.tarball, lock.tarball],
    app,
    `npm i ${what}`
  )
  const codes = Array.from(stderr.matchAll(/^npm error code (\S+)$/gm), (match) => match[1])
  check(codes.length === 1 && codes[0] === "ERESOLVE", `npm i ${what} failed with ${codes.join(", ")}:\n${stderr}`)
  const range = lock.manifest.peerDependencies?.effect
  const expected = [
    "ERESOLVE unable to resolve dependency tree",
    `Found: effect@${effectVersion}`,
    "Could not resolve dependency:",
    `peer effect@"${range}" from ${lock.package.name}@${lock.package.version}`
  ]
  const missing = expected.filter((line) => !stderr.includes(line))
  check(missing.length === 0, `npm i ${what}: npm's message lacks ${JSON.stringify(missing)}:\n${stderr}`)
  check(!Fs.existsSync(Path.join(app, "node_modules")), `npm i ${what} failed but installed something`)
  check(
    Fs.readFileSync(Path.join(app, "package.json"), "utf8") === JSON.stringify(manifest, null, 2) + "\n",
    `npm i ${what} failed but changed the app's package.json`
  )
  return `${what}: ERESOLVE (peer effect@"${range}")`
}

export const checkEffect4 = (options: Effect4Options): Effect4Report => {
  const { commands, effect3Version, otherNodes, packed, scratch, thisNode } = options
  const line = packed.filter((p) => p.package.line === "effect4")
  const core = packed.find((p) => p.package.line === "shared" && p.package.folder === "core")!
  const lock = line.find((p) => p.package.folder === "lock")
  if (lock === undefined) {
    const note = "Effect 4: the line has no @leasehold/lock to check"
    step(note)
    return { summary: [note], installs: [] }
  }
  const summary: Array<string> = []
  const app = Path.join(scratch, "app-effect4")

  step("Effect 4: `npm i effect @leasehold/lock` (and the core's tarball), with no effect version")
  makeApp(app, { effect: "", [core.package.name]: core.tarball, [lock.package.name]: lock.tarball })
  const effect = installedVersion(app, "effect")
  check(major(effect) === 4, `npm i effect @leasehold/lock (Effect 4) installed effect ${effect}`)
  npm(["ls", "--all"], app, "Effect 4: npm ls after npm i effect @leasehold/lock")
  summary.push(`Effect 4: \`npm i effect @leasehold/lock\` installed effect ${effect}`)

  // The docs' install commands: in this app for the effect it is on, in one of their own for another the line admits.
  const byEffect = commandsByEffect(commands, lock.manifest.peerDependencies!.effect!, scratch)
  const installs = [runInstallCommands(app, byEffect.get(effect) ?? [], effect, packed)]
  for (const [version, onIt] of byEffect) {
    if (version === effect) continue
    installs.push(checkInstallCommandsAlone(Path.join(scratch, `docs-effect-${version}`), onIt, version, packed))
  }

  const rest = line.filter((p) => p !== lock)
  const peers = [...new Set(line.flatMap((p) => requiredPeers(p.manifest)))].filter((name) => name !== "effect")
  const added = {
    ...Object.fromEntries(rest.map((p) => [p.package.name, p.tarball])),
    ...Object.fromEntries(peers.map((name) => [name, projectVersion(name)])),
    "@types/node": projectVersion("@types/node")
  }
  step(`Effect 4: adding ${Object.keys(added).join(", ")}`)
  addToApp(app, added)
  checkOneCopy(app, ["effect", ...peers], "Effect 4")
  check(installedVersion(app, "effect") === effect, "Effect 4: adding the line's other packages changed effect")
  npm(["ls", "--all"], app, "Effect 4: npm ls (every peer dependency satisfied)")
  summary.push(
    `Effect 4: ${line.map((p) => `${p.package.name} ${p.package.version}`).join(", ")} with ${
      ["effect", ...peers].map((name) => `${name} ${installedVersion(app, name)}`).join(", ")
    }`
  )

  copySmokePrograms(app)
  const folders = new Set(line.map((p) => p.package.folder))
  const withDynalite = folders.has("dynamodb") && folders.has("testing")
  if (!withDynalite) {
    const missing = ["dynamodb", "testing"].filter((folder) => !folders.has(folder)).map((f) => `@leasehold/${f}`)
    const note = `Effect 4: the dynalite programs skipped: the line has no ${missing.join(" or ")} yet`
    step(note)
    summary.push(note)
  }
  const runs: Array<string> = []
  for (const node of [thisNode, ...otherNodes]) {
    const version = node === process.execPath ?
      process.version :
      run(node, ["--version"], app, `${node} --version`).stdout.trim()
    const stores: ReadonlyArray<Store> = withDynalite && major(version) >= minimumTestKitNode ?
      ["memory", "dynalite"] :
      ["memory"]
    step(`Effect 4: ESM and CommonJS programs under Node ${version} (${stores.join(" and ")})`)
    for (const file of smokeFiles) {
      const output = smoke(app, node, file, stores)
      runs.push(`${output.format} ${output.node} (${stores.join(", ")})`)
    }
  }
  summary.push(`  ran: ${runs.join("; ")}`)

  const testKitNode = otherNodes[0] ?? thisNode
  const list: Array<Snippet> = []
  const counts: Array<string> = []
  for (const p of line) {
    const readme = Path.join(p.package.directory, "README.md")
    if (!Fs.existsSync(readme)) continue
    const markdown = Fs.readFileSync(readme, "utf8")
    const blocks = snippets(markdown, `readme-${p.package.folder}`)
    list.push(...blocks)
    counts.push(`${p.package.folder} ${blocks.length}`)
    const first = installProgram(markdown, `first-${p.package.folder}.mjs`)
    if (first !== undefined) {
      step(`Effect 4: the Install program of ${p.package.folder}'s README, with plain node`)
      Fs.writeFileSync(Path.join(app, first.file), first.code)
      run(testKitNode, [first.file], app, `the Install program of ${p.package.label}'s README (${first.file})`)
      counts.push(`${p.package.folder}'s Install program ran`)
    }
  }
  if (list.length > 0) {
    for (const resolution of ["nodenext", "bundler"] as const) {
      step(`Effect 4: type-checking the READMEs' snippets (moduleResolution ${resolution})`)
      typeCheck(app, tsc, list, resolution, appLib)
    }
  }
  summary.push(`  READMEs: ${list.length} snippets type-checked (${counts.join(", ")})`)

  const effect3Lock = packed.find((p) => p.package.line === "effect3" && p.package.folder === "lock")!
  summary.push(`  peer conflicts: ${checkPeerConflict(scratch, core, lock, effect3Version)}`)
  summary.push(`  peer conflicts: ${checkPeerConflict(scratch, core, effect3Lock, projectVersion("effect"))}`)
  return { summary, installs }
}
