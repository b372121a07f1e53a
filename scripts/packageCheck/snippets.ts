/**
 * The README's code, as a user would copy it: every ```ts block is a module of its own, so each must compile without
 * the others, except blocks marked ```ts no-check (code for other tools, such as the AWS CDK); the first ```js block of
 * the Install section is a program for plain `node`.
 */

/** A block of the README as a file of its own. */
export interface Snippet {
  readonly file: string
  readonly code: string
}

const fenced = (markdown: string, language: string): Array<string> =>
  Array.from(markdown.matchAll(new RegExp("^```" + language + "\\n([\\s\\S]*?)^```$", "gm")), (match) => match[1]!)

/** Every TypeScript block, numbered in the order the README shows them (`<prefix>-01.ts`, ...). */
export const snippets = (markdown: string, prefix = "readme"): ReadonlyArray<Snippet> =>
  fenced(markdown, "ts").map((code, index) => ({
    file: `${prefix}-${String(index + 1).padStart(2, "0")}.ts`,
    // A block without imports or exports would be a script sharing one scope with the others.
    code: /^\s*(import|export)\s/m.test(code) ? code : `${code}\nexport {}\n`
  }))

/** The Install section's first JavaScript block: the program a newcomer runs first. */
export const installProgram = (markdown: string, file = "first.mjs"): Snippet | undefined => {
  const section = markdown.split(/^## /m).find((part) => part.startsWith("Install"))
  const [code] = section === undefined ? [] : fenced(section, "js")
  return code === undefined ? undefined : { file, code }
}
