/**
 * What makes a name unusable as a key of a store that keys names by their UTF-8 bytes (the memory store): the core's
 * `LockName`, under the name the memory store imports it by.
 *
 * @internal
 */
export * from "@leasehold/core/record/LockName"
