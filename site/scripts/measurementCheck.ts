/**
 * The build's check that no page types a measurement: a sentence that states a number with a unit of time, rate,
 * size or ratio and speaks of measuring (the bench, a run, percentiles, throughput, CPU, heap, a machine) must take
 * its numbers from the bench's output (`{bench:...}`, see `benchValues.ts`). Code blocks, inline code and option
 * values (`lease 30 s`, `1 KiB`) are not measurements and are not read: a number is flagged only where a sentence
 * has both.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { reference } from "./benchValues.js"

const number = String.raw`\d[\d,]*(?:\.\d+)?(?:\s*(?:–|-|to)\s*\d[\d,]*(?:\.\d+)?)?`
const unit = String.raw`(?:ms|s|µs|us|seconds?|minutes?|KiB|MiB|GiB|KB|MB|%|x|×|/s|per second|cycles(?:/s)?|` +
  String.raw`acquisitions(?:/s)?|(?:store )?calls|writes|reads|renews|terms/s)(?![\w])`

/** A number followed by a unit that a measurement is stated in. */
const measured = new RegExp(String.raw`(?<![\w.])~?${number}\s*${unit}`, "u")

/** An approximate number with a unit (`about 2.4 s`, `~0.2 ms`): a measurement whatever the sentence says. */
const approximate = new RegExp(String.raw`(?:\babout\s+|~)${number}\s*${unit}`, "u")

/** A table's header or a row's label that gives its numbers a unit (`wait p99 (ms)`, `cycles/s`, `KiB/lock`). */
const unitHeader = /\((?:ms|s|µs|KiB|MiB|%|x)\b[^)]*\)|\b(?:ms|µs|KiB|MiB)\b|\/s\b|per (?:cycle|acquisition|second)/

/** Words by which a sentence speaks of something measured rather than configured. */
const measuring =
  /\b(bench(?:mark)?s?|measured?|measures|p50|p99|median|percentile|throughput|CPU|heap|(?:\d+|two)-core|VM|took|runs? at|per cycle|per acquisition|dynalite|DynamoDB Local|raw SDK|peers?|tail|wait|store calls|uncontended|contention)\b/i

/** Whether a sentence states a measurement. */
const states = (sentence: string): boolean =>
  approximate.test(sentence) || (measured.test(sentence) && measuring.test(sentence))

/**
 * Whether a table row states one: its own sentence does, or a cell after its label holds a number that its label or
 * the table's header gives a measured unit.
 */
const rowStates = (header: string, row: string): boolean => {
  const cells = row.split("|").map((cell) => cell.trim()).filter((cell) => cell !== "")
  const [label = "", ...data] = cells
  return states(row) ||
    (data.some((cell) => /\d/.test(cell)) && unitHeader.test(`${header} ${label}`) &&
      measuring.test(`${header} ${label}`))
}

/** A statement of a measurement in a page: where, and the sentence. */
export interface Finding {
  readonly line: number
  readonly sentence: string
}

/**
 * The prose of a page, line by line, with what is not prose blanked: fenced code, inline code, HTML comments, link
 * targets and `{bench:...}` references (whose numbers are generated).
 */
const prose = (markdown: string): Array<string> => {
  let fence: string | undefined
  const blank = (text: string) => text.replace(/[^\n]/g, " ")
  return markdown.replace(/<!--[\s\S]*?-->/g, blank).replace(reference, blank).split("\n").map((line) => {
    const opener = /^\s*(```+|~~~+)/.exec(line)?.[1]
    if (fence !== undefined) {
      if (opener !== undefined && opener.startsWith(fence)) fence = undefined
      return ""
    }
    if (opener !== undefined) {
      fence = opener
      return ""
    }
    return line.replace(/`[^`]*`/g, " ").replace(/\]\([^)]*\)/g, "]")
  })
}

/** The sentences (and table rows) of a page that state a measurement that is not generated. */
export const findMeasurements = (markdown: string): Array<Finding> => {
  const lines = prose(markdown)
  const findings: Array<Finding> = []
  // Sentences may run over lines: join each paragraph, then split it at sentence ends, keeping each one's first line.
  let paragraph: Array<{ line: number; text: string }> = []
  const flush = () => {
    const text = paragraph.map((p) => p.text).join(" ")
    let offset = 0
    for (const sentence of text.split(/(?<=[.;:!?])\s+(?=[A-Z(*])/)) {
      const at = text.indexOf(sentence, offset)
      offset = at + sentence.length
      if (!states(sentence)) continue
      let consumed = 0
      const first = paragraph.find((p) => (consumed += p.text.length + 1) > at) ?? paragraph[0]!
      findings.push({ line: first.line, sentence: sentence.replace(/\s+/g, " ").trim() })
    }
    paragraph = []
  }
  let header: string | undefined
  lines.forEach((text, index) => {
    if (/^\s*\|/.test(text)) {
      flush()
      if (header === undefined) header = text
      else if (!/^\s*\|[\s|:-]*$/.test(text) && rowStates(header, text)) {
        findings.push({ line: index + 1, sentence: text.trim() })
      }
      return
    }
    header = undefined
    // A list item starts a sentence of its own.
    if (text.trim() === "" || /^\s*([-*]|\d+\.)\s/.test(text)) flush()
    if (text.trim() !== "") paragraph.push({ line: index + 1, text })
  })
  flush()
  return findings
}

/** Every Markdown page under `root`, except the generated ones (`skip`, relative to `root`). */
const pages = (root: string, skip: ReadonlyArray<string>, directory = root): Array<string> =>
  Fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = Path.join(directory, entry.name)
    const relative = Path.relative(root, path).split(Path.sep).join("/")
    if (entry.name.startsWith(".") || entry.name === "public" || skip.includes(relative)) return []
    if (entry.isDirectory()) return pages(root, skip, path)
    return entry.name.endsWith(".md") ? [path] : []
  })

/** Fails with every typed measurement of the site's written pages, by file and line. */
export const checkPages = (root: string, generated: ReadonlyArray<string>): number => {
  const problems: Array<string> = []
  const checked = pages(root, generated)
  for (const page of checked) {
    for (const finding of findMeasurements(Fs.readFileSync(page, "utf8"))) {
      problems.push(`${Path.relative(root, page)}:${finding.line}: ${finding.sentence}`)
    }
  }
  if (problems.length > 0) {
    throw new Error(
      `site: ${problems.length} sentences state a measurement by hand; take the numbers from the bench's output ` +
        `({bench:table; row; column}, site/scripts/benchValues.ts) or leave them out:\n${problems.join("\n")}`
    )
  }
  return checked.length
}
