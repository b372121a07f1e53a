/**
 * A flag and its line of help, made from one description: the parser's options (with the value's name, so its
 * messages say `--table TABLE`) and the row `--help` prints.
 *
 * @internal
 */
import * as Options from "@effect/cli/Options"
import type * as Option from "effect/Option"
import type * as Help from "../Help.js"

/**
 * A flag as a command's config takes it, and as its help lists it.
 *
 * @internal
 */
export interface Flag<A> {
  readonly options: Options.Options<A>
  readonly help: Help.Row
}

/** @internal */
export interface Spec {
  readonly name: string
  /** A one-letter alias (`-t`). */
  readonly alias?: string | undefined
  /** What the flag is for, as its help says it. */
  readonly description: string
}

/** @internal */
export interface ValueSpec extends Spec {
  /** The value's name in the help and in messages: `TABLE`, `DURATION`, `N`. */
  readonly value: string
}

const row = (spec: Spec, value?: string): Help.Row => [
  `${spec.alias === undefined ? "" : `-${spec.alias}, `}--${spec.name}${value === undefined ? "" : ` ${value}`}`,
  spec.description
]

const described = <A>(options: Options.Options<A>, spec: Spec): Options.Options<A> => {
  const named = Options.withDescription(options, spec.description)
  return spec.alias === undefined ? named : Options.withAlias(named, spec.alias)
}

/**
 * A flag that takes a text value, and may be left out.
 *
 * @internal
 */
export const text = (spec: ValueSpec): Flag<Option.Option<string>> => ({
  options: Options.optional(described(Options.withPseudoName(Options.text(spec.name), spec.value), spec)),
  help: row(spec, spec.value)
})

/**
 * A flag that takes a whole number, and may be left out.
 *
 * @internal
 */
export const integer = (spec: ValueSpec): Flag<Option.Option<number>> => ({
  options: Options.optional(described(Options.withPseudoName(Options.integer(spec.name), spec.value), spec)),
  help: row(spec, spec.value)
})

/**
 * A switch: true when given.
 *
 * @internal
 */
export const boolean = (spec: Spec): Flag<boolean> => ({
  options: described(Options.boolean(spec.name), spec),
  help: row(spec)
})

/**
 * The same flag, its parsed value checked or turned into another (`Options.mapEffect` and the like).
 *
 * @internal
 */
export const map = <A, B>(self: Flag<A>, f: (options: Options.Options<A>) => Options.Options<B>): Flag<B> => ({
  options: f(self.options),
  help: self.help
})
