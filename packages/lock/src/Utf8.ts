/**
 * Measures of strings in UTF-8, the encoding DynamoDB stores and limits them in. The measures live in
 * `@leasehold/core`, shared by every store and both Effect lines; this module is their public face here.
 *
 * @since 1.0.0
 */
export * from "@leasehold/core/record/Utf8"
