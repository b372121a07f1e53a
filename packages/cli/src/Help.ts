/**
 * Help text for commands: a description, then examples, then (on the root) the exit codes.
 *
 * @since 0.1.0
 */
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Arr from "effect/Array"
import * as ExitCode from "./ExitCode.js"

/**
 * A command's description followed by an EXAMPLES section.
 *
 * @since 0.1.0
 * @category constructors
 */
export const describe = (
  description: string,
  examples: ReadonlyArray<readonly [command: string, what: string]>
): HelpDoc.HelpDoc =>
  HelpDoc.blocks([
    HelpDoc.p(description),
    ...(Arr.isNonEmptyReadonlyArray(examples)
      ? [
        HelpDoc.h2("EXAMPLES"),
        HelpDoc.descriptionList(
          Arr.map(examples, ([command, what]) => [HelpDoc.getSpan(HelpDoc.p(command)), HelpDoc.p(what)])
        )
      ]
      : [])
  ])

/**
 * The exit codes, for the root command's help footer.
 *
 * @since 0.1.0
 * @category constants
 */
export const exitCodes: HelpDoc.HelpDoc = HelpDoc.blocks([
  HelpDoc.h2("EXIT CODES"),
  HelpDoc.descriptionList(
    Arr.map(ExitCode.table, ([code, meaning]) => [HelpDoc.getSpan(HelpDoc.p(String(code))), HelpDoc.p(meaning)])
  ),
  HelpDoc.h2("ENVIRONMENT"),
  HelpDoc.p(
    "LEASEHOLD_TABLE (--table), AWS_REGION or AWS_DEFAULT_REGION (--region), DYNAMODB_ENDPOINT (--endpoint), " +
      "LEASEHOLD_PREFIX (--prefix). Flags win over the environment. Credentials come from the AWS SDK's default chain."
  )
])
