/**
 * What a `DynamoServerError` says for each reason: what went wrong, and what to install or change.
 *
 * @internal
 */
import type * as DynamoServer from "../../DynamoServer.js"
import * as DynamoDBLocal from "./dynamoDBLocal.js"
import type * as StartError from "./startError.js"

/** @internal */
export const messageOf = (engine: DynamoServer.Engine, reason: StartError.Reason, detail: string): string => {
  switch (reason) {
    case "JavaNotFound":
      return `Java not found: DynamoDB Local needs Java >= ${DynamoDBLocal.minimumJava} on PATH; install ` +
        `openjdk-${DynamoDBLocal.minimumJava}-jre-headless (or any JDK >= ${DynamoDBLocal.minimumJava}), ` +
        `or use dynalite (${detail})`
    case "JavaTooOld":
      return `Java too old: DynamoDB Local needs Java >= ${DynamoDBLocal.minimumJava}, but ${detail}; ` +
        `install openjdk-${DynamoDBLocal.minimumJava}-jre-headless and put it first on PATH`
    case "NotInstalled":
      return `${engine} is not installed: ${detail}`
    case "StartFailed":
      return `${engine} failed to start: ${detail}`
    case "StartTimeout":
      return `${engine} did not come up: ${detail}`
    case "InvalidEndpoint":
      return `invalid DynamoDB endpoint: ${detail}`
  }
}
