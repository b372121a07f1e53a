/**
 * The one record a store keeps per semaphore name: its limit, the permits in use, and who holds them. The rules live
 * in `@leasehold/core`, written once for every Effect line; this module is their public face here.
 *
 * @since 1.0.0
 */
export * from "@leasehold/core/record/SemaphoreRecord"
