/**
 * How the lock's spans are made.
 *
 * @internal
 */
import type * as Tracer from "effect/Tracer"

/**
 * No stack trace per span: thousands of leases renew and release, and a captured stack per call would cost more than
 * the call.
 *
 * @internal
 */
export const noStackTrace: Tracer.TraceOptions = { captureStackTrace: false }
