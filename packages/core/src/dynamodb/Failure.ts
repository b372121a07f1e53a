/**
 * What the SDK throws, judged: whether trying again can help, whether the request may have been applied, and a
 * message that names the cause and the fix. Errors are read by their shape (`name`, `code`, `$metadata`, Node's
 * `syscall`), as the SDK and Node throw them, so the rules need neither.
 *
 * @since 1.0.0
 */

/**
 * What the store knows when it explains a failure.
 *
 * @since 1.0.0
 * @category models
 */
export interface Context {
  /** The DynamoDB API action that failed, e.g. "UpdateItem" (also the IAM action, as `dynamodb:UpdateItem`). */
  readonly action: string
  readonly tableName: string
  /** The key schema the store expects, e.g. `{key: S}`. */
  readonly expectedKeySchema: string
  /** Where requests went: an endpoint URL or a region. */
  readonly location: string
  readonly attempts: number
  /** Whether an earlier attempt of the request may have been applied (it timed out, say, before a retry). */
  readonly earlierMayHaveApplied: boolean
}

/**
 * Our own request timeout, distinct from the SDK's errors.
 *
 * @since 1.0.0
 * @category models
 */
export class RequestTimedOut {
  /**
   * @since 1.0.0
   */
  readonly _tag = "RequestTimedOut"
  constructor(
    /**
     * @since 1.0.0
     */
    readonly timeoutMs: number
  ) {}
}

interface Described {
  readonly name: string
  readonly message: string
  readonly code: string | undefined
  readonly status: number | undefined
  readonly retryableHint: boolean
  /** The system call a network error came from: `connect` means the request never left this host. */
  readonly syscall: string | undefined
}

const describe = (error: unknown): Described => {
  if (typeof error !== "object" || error === null) {
    return {
      name: "Error",
      message: String(error),
      code: undefined,
      status: undefined,
      retryableHint: false,
      syscall: undefined
    }
  }
  const e = error as {
    readonly name?: unknown
    readonly message?: unknown
    readonly code?: unknown
    readonly $metadata?: { readonly httpStatusCode?: unknown }
    readonly $retryable?: unknown
    readonly errors?: unknown
    readonly syscall?: unknown
  }
  // Node's happy-eyeballs connect wraps per-address failures in an AggregateError; its code is on the inner errors.
  const inner = Array.isArray(e.errors)
    ? (e.errors[0] as { readonly code?: unknown; readonly syscall?: unknown } | undefined)
    : undefined
  const syscall = typeof e.syscall === "string"
    ? e.syscall
    : typeof inner?.syscall === "string"
    ? inner.syscall
    : undefined
  const code = typeof e.code === "string" ? e.code : typeof inner?.code === "string" ? inner.code : undefined
  return {
    name: typeof e.name === "string" ? e.name : "Error",
    message: typeof e.message === "string" && e.message !== "" ? e.message : String(code ?? e.name ?? "unknown"),
    code,
    status: typeof e.$metadata?.httpStatusCode === "number" ? e.$metadata.httpStatusCode : undefined,
    syscall,
    retryableHint: typeof e.$retryable === "object" && e.$retryable !== null
  }
}

const throttlingNames = new Set([
  "ProvisionedThroughputExceededException",
  "ThrottlingException",
  "RequestLimitExceeded",
  "TooManyRequestsException"
])

const serverNames = new Set([
  "InternalServerError",
  "InternalFailure",
  "ServiceUnavailable",
  "ServiceUnavailableException"
])

const networkCodes = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN"
])

const networkNames = new Set(["TimeoutError", "RequestTimeout", "RequestTimeoutException", "NetworkingError"])

const credentialNames = new Set([
  "UnrecognizedClientException",
  "InvalidSignatureException",
  "IncompleteSignatureException",
  "MissingAuthenticationTokenException",
  "ExpiredTokenException",
  "InvalidClientTokenId"
])

/**
 * DynamoDB's refusal of a single write to an item that a transaction is writing: nothing was applied, and the
 * transaction ends within moments, so the write is tried again.
 */
const transactionConflictName = "TransactionConflictException"

const keySchemaMessage =
  /key element does not match the schema|required keys was not given a value|number of conditions on the keys is invalid|missed key schema element|missing the key/i

type Kind = "throttled" | "conflict" | "server" | "network" | "timeout" | "other"

const kindOf = (error: unknown): Kind => {
  if (error instanceof RequestTimedOut) return "timeout"
  const d = describe(error)
  if (throttlingNames.has(d.name)) return "throttled"
  if (d.name === transactionConflictName) return "conflict"
  if (serverNames.has(d.name) || (d.status !== undefined && d.status >= 500)) return "server"
  if (
    (d.code !== undefined && networkCodes.has(d.code)) || networkNames.has(d.name) ||
    /socket hang up/i.test(d.message)
  ) return "network"
  if (d.retryableHint) return "throttled"
  return "other"
}

/** Network errors raised before a request left this host: it was never sent. */
const unsentCodes = new Set(["ECONNREFUSED", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN"])

/** Answers of a server that refused the request as a whole: it applied nothing. */
const refusalNames = new Set([
  ...throttlingNames,
  ...credentialNames,
  transactionConflictName,
  "ResourceNotFoundException",
  "ValidationException",
  "AccessDeniedException",
  "CredentialsProviderError",
  "ConditionalCheckFailedException"
])

/**
 * Whether a request that failed with `error` may have been applied: unless it was never sent, or the server refused
 * it, it may (a timeout, a dropped connection, a server error all leave the write's fate open).
 *
 * @since 1.0.0
 * @category classification
 */
export const mayHaveApplied = (error: unknown): boolean => {
  if (error instanceof RequestTimedOut) return true
  const d = describe(error)
  if ((d.code !== undefined && unsentCodes.has(d.code)) || d.syscall === "connect") return false
  return !refusalNames.has(d.name)
}

/**
 * Whether trying the same request again soon can help: throttling, a transaction on the same item, 5xx, network
 * errors, timeouts.
 *
 * @since 1.0.0
 * @category classification
 */
export const isTransient = (error: unknown): boolean => kindOf(error) !== "other"

/**
 * Whether the error is DynamoDB's answer to a failed condition: not an error for a lock store, but a conflict.
 *
 * @since 1.0.0
 * @category classification
 */
export const isConditionalCheckFailed = (
  error: unknown
): error is { readonly name: "ConditionalCheckFailedException"; readonly Item?: unknown } =>
  typeof error === "object" && error !== null &&
  (error as { readonly name?: unknown }).name === "ConditionalCheckFailedException"

/**
 * What a failed request comes to: whether trying it again can help, whether it (or an earlier attempt) may have been
 * applied, and what to tell a person.
 *
 * @since 1.0.0
 * @category models
 */
export interface Judged {
  readonly retryable: boolean
  readonly mayHaveApplied: boolean
  readonly message: string
}

/**
 * The judgement of a failed request, with a message that names the cause and the fix.
 *
 * @since 1.0.0
 * @category classification
 */
export const judge = (error: unknown, context: Context): Judged => {
  const kind = kindOf(error)
  return kind === "other" ? refusal(error, context) : transient(kind, error, context)
}

/** A judgement of `error`, which may have applied if it or an earlier attempt may have. */
const judged = (error: unknown, context: Context) => (retryable: boolean, message: string): Judged => ({
  retryable,
  message,
  mayHaveApplied: context.earlierMayHaveApplied || mayHaveApplied(error)
})

const tries = (context: Context) => context.attempts === 1 ? "1 attempt" : `${context.attempts} attempts`

const transient = (kind: Exclude<Kind, "other">, error: unknown, context: Context): Judged => {
  const { action, location, tableName } = context
  const d = describe(error)
  const fail = judged(error, context)
  const tried = tries(context)
  switch (kind) {
    case "timeout":
      return fail(
        true,
        `DynamoDB ${action} on table "${tableName}" at ${location} timed out ` +
          `(${(error as RequestTimedOut).timeoutMs} ms per request, ${tried}): ` +
          `check the network path to DynamoDB, or raise the store's requestTimeout`
      )
    case "throttled":
      return fail(
        true,
        `DynamoDB throttled ${action} on table "${tableName}" (${d.name}, ${tried}): ` +
          `the table or account is over its capacity; use on-demand billing or raise its provisioned throughput`
      )
    case "conflict":
      return fail(
        true,
        `DynamoDB refused ${action} on table "${tableName}" while a transaction was writing the same item ` +
          `(${d.name}, ${tried}): try again once it has ended`
      )
    case "server":
      return fail(
        true,
        `DynamoDB at ${location} failed ${action} on table "${tableName}" with a server error ` +
          `(${d.name}${d.status === undefined ? "" : ` HTTP ${d.status}`}: ${d.message}; ${tried}); it may be ` +
          `transient: try again later`
      )
    case "network":
      return fail(
        true,
        `could not reach DynamoDB at ${location} for ${action} (${d.code ?? d.name}: ${d.message}; ${tried}): ` +
          `is the endpoint right and the server running? (for DynamoDB Local, check DYNAMODB_ENDPOINT)`
      )
  }
}

const refusal = (error: unknown, context: Context): Judged => {
  const { action, location, tableName } = context
  const d = describe(error)
  const fail = judged(error, context)
  if (d.name === "ResourceNotFoundException") {
    return fail(
      false,
      `table "${tableName}" not found at ${location}: create it with ` +
        `DynamoLockStore.createTable({ tableName: "${tableName}" }) or \`leasehold table create --table ${tableName}\`` +
        ` (or fix the table name / region / endpoint)`
    )
  }
  if (d.name === "ValidationException" && keySchemaMessage.test(d.message)) {
    return fail(
      false,
      `table "${tableName}"'s key schema is not ${context.expectedKeySchema} (DynamoDB said: ${d.message}): ` +
        `use a table made by DynamoLockStore.createTable, or set the store's partitionKey/sortKey options to the ` +
        `table's key attributes (DynamoLockStore.checkTable lists the difference)`
    )
  }
  if (d.name === "ValidationException") {
    return fail(false, `DynamoDB rejected ${action} on table "${tableName}" as invalid: ${d.message}`)
  }
  if (d.name === "AccessDeniedException") {
    return fail(
      false,
      `access denied for ${action} on table "${tableName}" at ${location}: the credentials in use lack the IAM ` +
        `permission dynamodb:${action} on that table; grant it in the policy of the role or user (${d.message})`
    )
  }
  if (credentialNames.has(d.name)) {
    return fail(
      false,
      `DynamoDB at ${location} rejected the request's credentials (${d.name}: ${d.message}): check ` +
        `AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN or AWS_PROFILE, the region, and that the ` +
        `local clock is right (signatures expire)`
    )
  }
  if (d.name === "CredentialsProviderError") {
    return fail(
      false,
      `no AWS credentials for DynamoDB (${d.message}): set AWS_PROFILE or AWS_ACCESS_KEY_ID / ` +
        `AWS_SECRET_ACCESS_KEY, or pass clientConfig.credentials (any value works for DynamoDB Local)`
    )
  }
  return fail(false, `DynamoDB ${action} on table "${tableName}" at ${location} failed: ${d.name}: ${d.message}`)
}

/**
 * What a lock write's failure says of its item, when DynamoDB refused its arithmetic on the fence: a type error there
 * means a malformed item, which deserves its name. `undefined` for any other failure.
 *
 * @since 1.0.0
 * @category classification
 */
export const fenceTypeProblem = (message: string): string | undefined =>
  /incorrect data type/i.test(message) ? `its "fence" attribute is not a number (DynamoDB said: ${message})` : undefined

/**
 * The same for a semaphore write: arithmetic on `fence` or `used`, or a path into `holders`, fails on an item with the
 * wrong types.
 *
 * @since 1.0.0
 * @category classification
 */
export const semaphoreTypeProblem = (message: string): string | undefined =>
  /incorrect data type|document path/i.test(message)
    ? `an attribute has the wrong type (DynamoDB said: ${message})`
    : undefined

/**
 * Where a client sends its requests, as its config says: plain data the SDK's `DynamoDBClient.config` has.
 *
 * @since 1.0.0
 * @category models
 */
export interface ClientLocation {
  readonly region: () => Promise<string | undefined>
  readonly endpoint?:
    | (() => Promise<{
      readonly protocol: string
      readonly hostname: string
      readonly port?: number | undefined
      readonly path: string
    }>)
    | undefined
}

/**
 * Where a client sends its requests, for error messages ("http://127.0.0.1:8000", "region eu-west-1"): its endpoint
 * when it has one, else its region. Its config's providers are async and may themselves fail; a failing one counts as
 * not configured, so this never rejects.
 *
 * @since 1.0.0
 * @category messages
 */
export const describeLocation = async (config: ClientLocation): Promise<string> => {
  let region: string | undefined
  try {
    region = await config.region()
  } catch {
    region = undefined
  }
  try {
    if (config.endpoint !== undefined) {
      const endpoint = await config.endpoint()
      const port = endpoint.port === undefined ? "" : `:${endpoint.port}`
      return `${endpoint.protocol}//${endpoint.hostname}${port}${endpoint.path === "/" ? "" : endpoint.path}`
    }
  } catch {
    // fall through to the region
  }
  return region === undefined ? "the default endpoint (no region configured)" : `region ${region}`
}

/**
 * The message of a request that a store whose scope has closed did not send (`inFlight: false`), or abandoned in
 * flight (`inFlight: true`).
 *
 * @since 1.0.0
 * @category messages
 */
export const closedMessage = (action: string, tableName: string, inFlight: boolean): string =>
  `${action} on table "${tableName}" ${inFlight ? "was abandoned in flight" : "was not sent"}: the store's scope has ` +
  "closed (the program it was provided to has ended)"
