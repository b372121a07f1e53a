/**
 * The site's measured numbers, taken from BENCHMARKS.md (written by `npm run bench`) when the site is built. A page
 * never types a measurement: it names one, and the build puts in the value of the last run.
 *
 * - `{bench:2; Leasehold, 4 processes; wait p99 ms}`: a cell of a bench table (table; row; column), its median as the
 *   table prints it (thousands grouped). A fourth part picks another form: `whole` (median and range, as printed),
 *   `int` (rounded), `1` or `2` (decimals).
 * - `{bench:1; Leasehold / raw SDK floor; client CPU ms/cycle}`: the ratio of two rows' cells, as `1.81x`.
 * - `{bench:machine}`, `{bench:date}`, `{bench:hold ms}`, `{bench:version <package>}`, `{bench:7 max delay}`: what
 *   the run's header and method say.
 * - `{bench:table comparison}` alone on a line: a whole generated table.
 *
 * A name that the last run does not have fails the build with a message that says which, rather than showing
 * something else.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { measure, type Table, tableAfter } from "./benchmarkTables.js"
import { repositoryRoot } from "./paths.js"

/** The part of markdown-it's interface the plugin uses (VitePress's own markdown-it). */
interface MarkdownIt {
  readonly core: {
    readonly ruler: {
      readonly before: (
        name: string,
        rule: string,
        fn: (state: { src: string; readonly env: unknown }) => void
      ) => void
    }
  }
}

/** Where each table of BENCHMARKS.md is: the heading it follows, and which table under it (from 0). */
const tables: Record<string, { readonly heading: string; readonly index: number }> = {
  "1": { heading: "1. Uncontended", index: 0 },
  "1 calls": { heading: "1. Uncontended", index: 1 },
  "2": { heading: "2. Contention", index: 0 },
  "3": { heading: "3. Takeover", index: 0 },
  "4": { heading: "4. Scale", index: 0 },
  "4 renews": { heading: "4. Scale", index: 1 },
  "5": { heading: "5. Memory store", index: 0 },
  "5 every path": { heading: "5. Memory store", index: 1 },
  "6": { heading: "6. Uncontended acquire + release on AWS DynamoDB Local", index: 0 },
  "6 calls": { heading: "6. Uncontended acquire + release on AWS DynamoDB Local", index: 1 },
  "6 contention": { heading: "6. Uncontended acquire + release on AWS DynamoDB Local", index: 2 },
  "7 none": { heading: "No delay", index: 0 },
  "7 none contention": { heading: "No delay", index: 1 },
  // The contention shape's grid: with no delay, then with the delay each way.
  "8": { heading: "8. Contention shape", index: 0 },
  "8 delay": { heading: "8. Contention shape", index: 1 },
  "9": { heading: "9. Cold start", index: 0 },
  "9 imports": { heading: "9. Cold start", index: 1 },
  "10": { heading: "10. Takeover after SIGKILL of a process holding", index: 0 },
  "11": { heading: "11. The cost of holding N locks for an hour", index: 0 },
  "12": { heading: "12. Read/write locks under contention", index: 0 },
  "13": { heading: "13. Taking N free locks", index: 0 }
}

/** The syntax of a reference in a page. */
export const reference = /\{bench:([^{}]+)\}/g

/** The measured part of BENCHMARKS.md: everything before the hand-written reading of the numbers (FINDINGS.md). */
export const measuredPart = (markdown: string): string => {
  const end = markdown.search(/^## Reading the numbers/m)
  return end < 0 ? markdown : markdown.slice(0, end)
}

/** `13632` as `13,632`; decimals as printed. */
const grouped = (text: string): string => {
  const [whole, fraction] = text.split(".")
  const digits = whole!.replace(/,/g, "")
  const withCommas = digits.length > 3 ? digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",") : digits
  return fraction === undefined ? withCommas : `${withCommas}.${fraction}`
}

const medianText = (cell: string): string => cell.trim().replace(/\s*\(.*\)$/, "")

const formatCell = (cell: string, form: string | undefined): string => {
  switch (form) {
    case undefined:
      return grouped(medianText(cell))
    case "whole":
      return cell.trim().replace(/^[\d.,]+/, (median) => grouped(median))
    case "int":
      return grouped(String(Math.round(measure(cell).median)))
    case "1":
    case "2":
      return grouped(measure(cell).median.toFixed(Number(form)))
    default:
      throw new Error(`unknown form "${form}" (whole, int, 1 or 2)`)
  }
}

/** The numbers of one run of the bench, by reference. */
export interface BenchValues {
  /** The value a reference names (what is inside `{bench:...}`); throws if the run has none. */
  readonly value: (name: string) => string
  /** Replaces every reference in a page's Markdown; `page` names it in errors. */
  readonly render: (markdown: string, page: string) => string
}

/** The values of a BENCHMARKS.md. */
export const fromMarkdown = (whole: string): BenchValues => {
  const markdown = measuredPart(whole)
  const cache = new Map<string, Table>()
  const table = (id: string): Table => {
    const cached = cache.get(id)
    if (cached !== undefined) return cached
    const found = id === "7 max" || id === "7 max contention" ?
      delayTable(markdown, id.endsWith("contention") ? 1 : 0)
      : tables[id] === undefined
      ? undefined
      : tableAfter(markdown, tables[id].heading, [], tables[id].index)
    if (found === undefined) {
      throw new Error(`no table "${id}" (one of ${[...Object.keys(tables), "7 max", "7 max contention"].join(", ")})`)
    }
    cache.set(id, found)
    return found
  }
  const cell = (id: string, rowName: string, column: string): string => {
    const rows = table(id)
    const label = (r: Table[number]) => Object.values(r)[0]!
    // A row by its whole label, or by its label without the explanation in parentheses that ends it.
    const exact = rows.find((r) => label(r) === rowName)
    const short = rows.filter((r) => label(r).replace(/\s\([^()]*\)$/, "") === rowName)
    const row = exact ?? (short.length === 1 ? short[0] : undefined)
    if (row === undefined) {
      throw new Error(`table ${id} has no row "${rowName}" (rows: ${rows.map(label).join("; ")})`)
    }
    const value = row[column]
    if (value === undefined || value === "") {
      throw new Error(`table ${id} has no column "${column}" (columns: ${Object.keys(row).join("; ")})`)
    }
    return value
  }
  const named = (name: string): string | undefined => {
    if (name === "machine") return /^- Machine: (.*?)(, Linux.*)?$/m.exec(markdown)?.[1]
    if (name === "date") return /(\d{4}-\d{2}-\d{2})T\d{2}:\d{2}/.exec(markdown)?.[1]
    if (name === "hold ms") return /hold it (\d+) ms/.exec(markdown)?.[1]
    if (name === "7 max delay") return delayHeadings(markdown).at(-1)
    if (name.startsWith("version ")) {
      const pkg = name.slice("version ".length).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
      return new RegExp(`^- Versions: .*?(?:^|, | )${pkg} ([\\w.-]+)`, "m").exec(markdown)?.[1]
    }
    if (name === "table comparison") return comparisonTable(value, table("3"))
    if (name === "3 within bounds") return withinBounds(table("3"))
    return undefined
  }
  const value = (name: string): string => {
    const parts = name.split(";").map((part) => part.replace(/\s+/g, " ").trim())
    if (parts.length === 1) {
      const found = named(parts[0]!)?.replace(/\s\([^()]*\)$/, "")
      if (found === undefined) throw new Error(`BENCHMARKS.md does not give "${name}"`)
      return found
    }
    if (parts.length < 3 || parts.length > 4) throw new Error(`"${name}" is not "table; row; column[; form]"`)
    const [id, rowName, column, form] = parts as [string, string, string, string | undefined]
    const ratio = rowName.split(" / ")
    if (ratio.length === 2 && !table(id).some((row) => Object.values(row)[0]!.startsWith(rowName))) {
      const [top, bottom] = ratio.map((r) => measure(cell(id, r, column)).median) as [number, number]
      return `${(top / bottom).toFixed(2)}x`
    }
    return formatCell(cell(id, rowName, column), form)
  }
  // Code shows a reference as it is written (a page may explain the syntax); everything else gets the value.
  const render = (page: string): string =>
    page.replace(
      // A fence's indent is spaces or tabs on its own line: `\s` would also take the blank lines before it, and then
      // pair it with the next fence that follows a blank line, taking in every reference between them.
      /^([ \t]*)(```|~~~)[\s\S]*?^\1\2|`[^`\n]*`|\{bench:([^{}]+)\}/gm,
      (all, _indent, _fence, inner: string | undefined) => inner === undefined ? all : value(inner)
    )
  return {
    value,
    render: (page, where) => {
      try {
        return render(page)
      } catch (error) {
        throw new Error(`${where}: ${error instanceof Error ? error.message : String(error)}`)
      }
    }
  }
}

/** The subsections of table 7, one per injected delay, in the order of the run (`5 ms each way (10 ms round trip)`). */
const delayHeadings = (markdown: string): Array<string> => {
  const start = markdown.search(/^## 7\. /m)
  if (start < 0) return []
  return [...markdown.slice(start).matchAll(/^### (.*)$/gm)].map((match) => match[1]!)
}

/** A table of table 7's last subsection, the largest delay. */
const delayTable = (markdown: string, index: number): Table | undefined => {
  const last = delayHeadings(markdown).at(-1)
  return last === undefined ? undefined : tableAfter(markdown, last, [], index)
}

/** The peers the bench runs, as tables 1, 2 and 3 name them. */
const peers = [
  "dynamodb-lock-client (FailOpen)",
  "@deliveryhero/dynamodb-lock",
  "effect-distributed-lock (bench's DynamoDB backing)"
] as const

/** The comparison page's table: Leasehold beside each peer, every cell a value of the run. */
const comparisonTable = (value: (name: string) => string, takeovers: Table): string => {
  const lines = ["Leasehold (Effect 3, Node 22)", "Leasehold (Effect 4, Node 22)"]
  const processes = (name: string) => `${name}, 4 processes`
  const count = (n: string, what: string) => `${n} ${what}${n === "1" ? "" : "s"}`
  const calls = (id: string, row: string) =>
    `${count(value(`${id}; ${row}; writes/cycle; int`), "write")}, ${
      count(value(`${id}; ${row}; reads/cycle; int`), "read")
    }`
  const takeover = (name: string) => fromTakeover(value, takeovers, name).join("; ")
  const header = [
    "measure",
    "Leasehold",
    "Leasehold: Effect 3 / Effect 4 line",
    ...peers.map((peer) => peer.replace(" (bench's DynamoDB backing)", " (bench's backing)"))
  ]
  const row = (measureName: string, leasehold: string, byLine: string, ofPeer: (peer: string) => string) =>
    `| ${[measureName, leasehold, byLine, ...peers.map(ofPeer)].join(" | ")} |`
  return [
    `| ${header.join(" | ")} |`,
    `|${header.map(() => "---").join("|")}|`,
    row(
      "uncontended cycle: store calls",
      calls("1", "Leasehold"),
      lines.map((line) => calls("1", line)).join(" / "),
      (peer) => calls("1", peer)
    ),
    row(
      `uncontended cycles/s (raw SDK floor: ${value("1; raw SDK floor; cycles/s")})`,
      value("1; Leasehold; cycles/s"),
      lines.map((line) => value(`1; ${line}; cycles/s`)).join(" / "),
      (peer) => value(`1; ${peer}; cycles/s`)
    ),
    row(
      "4 processes on one key: wait p50 / p99 / max (ms)",
      ["p50", "p99", "max"].map((p) => value(`2; ${processes("Leasehold")}; wait ${p} ms`)).join(" / "),
      lines.map((line) => value(`2; ${processes(line)}; wait p99 ms`)).join(" / ") + " (p99)",
      (peer) => ["p50", "p99", "max"].map((p) => value(`2; ${processes(peer)}; wait ${p} ms`)).join(" / ")
    ),
    row(
      "4 processes: store calls per acquisition",
      value(`2; ${processes("Leasehold")}; store calls/acquisition`),
      lines.map((line) => value(`2; ${processes(line)}; store calls/acquisition`)).join(" / "),
      (peer) => value(`2; ${processes(peer)}; store calls/acquisition`)
    ),
    row(
      "4 processes: acquisitions of the busiest / the least busy",
      value(`2; ${processes("Leasehold")}; share max/min`),
      lines.map((line) => value(`2; ${processes(line)}; share max/min`)).join(" / "),
      (peer) => value(`2; ${processes(peer)}; share max/min`)
    ),
    row(
      `takeover after SIGKILL, lease ${value(`3; ${takeoverRows(takeovers, "Leasehold")[0]}; lease ms`)} ms ` +
        "(ms, median)",
      takeover("Leasehold"),
      "not run per line",
      takeover
    )
  ].join("\n")
}

/** Table 3's rows of one contender, each as `1,444 absolute (bound 1,500)`. */
const fromTakeover = (value: (name: string) => string, takeovers: Table, contender: string): Array<string> => {
  const rows: Array<string> = []
  for (const name of takeoverRows(takeovers, contender)) {
    const mode = name.slice(contender.length + 2).replace(/\s\([^()]*\)$/, "")
    const bound = value(`3; ${name}; bound: at most ms`)
    rows.push(`${value(`3; ${name}; kill → takeover ms`)} ${mode} (bound ${bound})`)
  }
  if (rows.length === 0) throw new Error(`table 3 has no row of ${contender}`)
  return rows
}

/** Whether every takeover trial of table 3 stayed inside its mode's bound, as a phrase. */
const withinBounds = (takeovers: Table): string => {
  const over = takeovers.filter((row) =>
    measure(row["kill → takeover ms"] ?? "").max > Number(row["bound: at most ms"])
  ).map((row) => Object.values(row)[0]!.replace(/\s\([^()]*\)$/, ""))
  return over.length === 0
    ? "every trial of every mode stayed inside its bound"
    : `the slowest trial went past its mode's bound in ${over.join("; ")}`
}

/** The names of a contender's rows of table 3 (`Leasehold, absolute (...)`). */
const takeoverRows = (takeovers: Table, contender: string): Array<string> =>
  takeovers.map((row) => Object.values(row)[0]!).filter((name) => name.startsWith(`${contender}, `))

/** The values of the repository's BENCHMARKS.md. */
export const load = (): BenchValues => {
  const markdown = Fs.readFileSync(Path.join(repositoryRoot, "BENCHMARKS.md"), "utf8")
  return fromMarkdown(markdown)
}

/**
 * A markdown-it plugin that puts the values into a page before it is parsed, so that every render of it (the page,
 * the search index) shows them; a reference the run can not give fails the build.
 */
export const markdownPlugin = (values: BenchValues) => (md: MarkdownIt): void => {
  md.core.ruler.before("block", "bench-values", (state) => {
    const page = (state.env as { relativePath?: string } | undefined)?.relativePath ?? "a page"
    state.src = values.render(state.src, page)
  })
}
