/** The packages that are published, each after the packages it imports (the order they build in). */
export const publicPackages = ["core", "lock", "dynamodb", "testing", "cli"] as const
