// What the package check's programs do with the installed packages, handed the modules by smoke.mjs (loaded with
// `import`) and smoke.cjs (loaded with `require`), so that both loaders run the same locks: two acquisitions of one
// name in a row, on the memory store and on an embedded dynalite; the second lease's fence must be the higher. Both
// Effect lines run it: what it calls has the same name and meaning in effect 3 and 4 and in both Leasehold lines.
const twoFences = ({ Effect, Lock }) =>
  Effect.gen(function*() {
    const fence = Effect.scoped(Effect.map(Lock.acquire("package-check/inner"), (lease) => lease.fence))
    const first = yield* Lock.withLock("package-check", fence)
    const second = yield* fence
    return [first, second]
  })

exports.memory = ({ Effect, Lock, LockStore }) =>
  twoFences({ Effect, Lock }).pipe(Effect.provide(LockStore.layerMemory))

exports.dynalite = ({ DynamoLockStore, DynamoServer, Effect, Layer, Lock }) =>
  Effect.gen(function*() {
    const server = yield* DynamoServer.DynamoServer
    const tableName = "package-check"
    yield* DynamoLockStore.createTable({ tableName, clientConfig: server.clientConfig })
    return yield* twoFences({ Effect, Lock }).pipe(
      Effect.provide(DynamoLockStore.layer({ tableName, clientConfig: server.clientConfig }))
    )
  }).pipe(Effect.provide(Layer.fresh(DynamoServer.layerDynalite)))
