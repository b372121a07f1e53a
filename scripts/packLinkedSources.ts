/**
 * The Effect 4 line's modules whose code is the same on both majors are symbolic links to the Effect 3 line's files,
 * and npm leaves symbolic links out of a tarball. Each public package of the Effect 4 line runs this around
 * `npm pack` and `npm publish` (its `prepack` and `postpack` scripts), in its own folder:
 *
 *   node --import tsx ../../../scripts/packLinkedSources.ts copy   each link in a folder the package ships becomes a
 *                                                                  copy of its target, so the tarball holds the file
 *   node --import tsx ../../../scripts/packLinkedSources.ts link   the links are back
 *
 * `copy` notes the links it replaced in `build/packedLinks.json` (never shipped), which `link` reads; a pack that
 * stopped between the two leaves the note, and the next `copy` or `link` keeps what it says.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"

interface PackedLink {
  /** The link's path, relative to the package's folder. */
  readonly path: string
  /** What the link says, relative to the link's folder. */
  readonly target: string
}

const packageDirectory = process.cwd()
const note = Path.join(packageDirectory, "build", "packedLinks.json")

const readNote = (): ReadonlyArray<PackedLink> =>
  Fs.existsSync(note) ? JSON.parse(Fs.readFileSync(note, "utf8")) as ReadonlyArray<PackedLink> : []

/** The folders of the package's `files` that it ships whole, e.g. `src`. */
const shippedFolders = (): ReadonlyArray<string> => {
  const manifest = JSON.parse(Fs.readFileSync(Path.join(packageDirectory, "package.json"), "utf8")) as {
    readonly files?: ReadonlyArray<string>
  }
  return (manifest.files ?? []).filter((entry) => {
    const stat = Fs.lstatSync(Path.join(packageDirectory, entry), { throwIfNoEntry: false })
    return stat?.isDirectory() === true
  })
}

const links = (): ReadonlyArray<PackedLink> =>
  shippedFolders().flatMap((folder) =>
    Fs.readdirSync(Path.join(packageDirectory, folder), { recursive: true, encoding: "utf8" })
      .map((file) => Path.join(folder, file))
      .filter((file) => Fs.lstatSync(Path.join(packageDirectory, file)).isSymbolicLink())
      .map((file) => ({ path: file, target: Fs.readlinkSync(Path.join(packageDirectory, file)) }))
  )

const copy = () => {
  const found = links()
  const noted = [...readNote(), ...found]
  if (noted.length === 0) return
  Fs.mkdirSync(Path.dirname(note), { recursive: true })
  Fs.writeFileSync(note, JSON.stringify(noted, null, 2) + "\n")
  for (const link of found) {
    const file = Path.join(packageDirectory, link.path)
    const text = Fs.readFileSync(file)
    Fs.rmSync(file)
    Fs.writeFileSync(file, text)
  }
}

const link = () => {
  for (const packed of readNote()) {
    const file = Path.join(packageDirectory, packed.path)
    Fs.rmSync(file, { force: true })
    Fs.symlinkSync(packed.target, file)
  }
  Fs.rmSync(note, { force: true })
}

const [command] = process.argv.slice(2)
if (command === "copy") copy()
else if (command === "link") link()
else {
  console.error("usage: packLinkedSources.ts copy | link   (in the folder of the package being packed)")
  process.exitCode = 2
}
