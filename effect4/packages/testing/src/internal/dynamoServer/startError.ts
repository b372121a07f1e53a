/**
 * Why a server could not be started, as the internals report it; `DynamoServer` turns it into the public
 * `DynamoServerError` with the engine and an actionable message.
 *
 * @internal
 */
import * as Data from "effect/Data"

/** @internal */
export type Reason = "JavaNotFound" | "JavaTooOld" | "NotInstalled" | "StartFailed" | "StartTimeout" | "InvalidEndpoint"

/** @internal */
export class StartError extends Data.TaggedError("StartError")<{
  readonly reason: Reason
  readonly detail: string
  readonly cause?: unknown
}> {}
