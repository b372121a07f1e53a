/**
 * The one record a store keeps per lock name, its predicates and its limits. The rules live in `@leasehold/core`,
 * written once for every Effect line; this module is their public face here.
 *
 * @since 1.0.0
 */
export * from "@leasehold/core/record/LockRecord"
