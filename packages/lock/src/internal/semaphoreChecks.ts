/**
 * What every store refuses in a semaphore request before writing anything: the core's `SemaphoreChecks`, under the
 * name the memory store imports it by.
 *
 * @internal
 */
export * from "@leasehold/core/store/SemaphoreChecks"
