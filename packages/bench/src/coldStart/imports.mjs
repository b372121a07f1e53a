// Where the lock program's imports go: each package imported after the ones before it, so that a step is the time
// that package adds to what is loaded already. Prints `[[step, ms since the process started], ...]`.
const steps = [["node", performance.now()]]
for (const specifier of ["effect", "@aws-sdk/client-dynamodb", "@leasehold/lock", "@leasehold/dynamodb"]) {
  await import(specifier)
  steps.push([specifier, performance.now()])
}
process.stdout.write(JSON.stringify(steps) + "\n")
