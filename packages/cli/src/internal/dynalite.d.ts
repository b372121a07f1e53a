// dynalite ships no types; this is the part of its API the embedded server uses.
declare module "dynalite" {
  import type * as Http from "node:http"

  interface Options {
    readonly createTableMs?: number
    readonly deleteTableMs?: number
    readonly updateTableMs?: number
  }

  const dynalite: (options: Options) => Http.Server
  export default dynalite
}
