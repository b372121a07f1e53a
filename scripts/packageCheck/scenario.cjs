// What the package check's programs do with the installed packages, handed the modules by smoke.mjs (loaded with
// `import`) and smoke.cjs (loaded with `require`), so that both loaders run the same locks: two acquisitions of one
// name in a row on the memory store and on an embedded dynalite; the second lease's fence must be the higher.
exports.locks = ({ DynamoLockStore, DynamoServer, Effect, Layer, Lock, LockStore }) => {
  const twoFences = Effect.gen(function*() {
    const fence = Effect.scoped(Effect.map(Lock.acquire("package-check/inner"), (lease) => lease.fence))
    const first = yield* Lock.withLock("package-check", fence)
    const second = yield* fence
    return [first, second]
  })

  const memory = twoFences.pipe(Effect.provide(LockStore.layerMemory))

  const dynalite = Effect.gen(function*() {
    const server = yield* DynamoServer.DynamoServer
    const tableName = "package-check"
    yield* DynamoLockStore.createTable({ tableName, clientConfig: server.clientConfig })
    return yield* twoFences.pipe(
      Effect.provide(DynamoLockStore.layer({ tableName, clientConfig: server.clientConfig }))
    )
  }).pipe(Effect.provide(Layer.fresh(DynamoServer.layerDynalite)))

  return Effect.all({ memory, dynalite })
}
