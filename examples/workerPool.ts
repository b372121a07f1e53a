/**
 * A worker pool guarding per-entity work: many fibers (and, run on several hosts, many processes) take jobs from a
 * queue, and each job locks its entity ("accounts/<id>"), so two jobs for the same account never run at once while
 * jobs for different accounts run in parallel. Each job runs in a fiber of its own, which a lost lease interrupts (not
 * the worker); such a job is put back for another try.
 *
 *   LEASEHOLD_TABLE=leasehold-locks DYNAMODB_ENDPOINT=http://127.0.0.1:8000 AWS_REGION=us-east-1 \
 *     AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local node --import tsx examples/workerPool.ts
 *
 * against a local server with the lock table (README, "Examples", shows how to start one).
 */
import { NodeRuntime } from "@effect/platform-node"
import { DynamoLockStore } from "@leasehold/dynamodb"
import { Lock } from "@leasehold/lock"
import { Effect, Exit, Fiber, Queue, Random } from "effect"

interface Job {
  readonly account: string
  readonly attempt: number
}

/** The per-entity work; `fence` orders the writes of successive holders of the same account's lock. */
const settle = (job: Job, fence: number) =>
  Effect.gen(function*() {
    yield* Effect.logInfo(`settling ${job.account} (fence ${fence}, attempt ${job.attempt})`)
    yield* Effect.sleep(yield* Random.nextIntBetween(100, 500))
  })

const poolSize = 8

const program = Effect.gen(function*() {
  const jobs = yield* Queue.unbounded<Job>()
  yield* Queue.offerAll(jobs, Array.from({ length: 40 }, (_, i) => ({ account: `acct-${i % 10}`, attempt: 1 })))

  const runJob = (job: Job) =>
    Effect.gen(function*() {
      const attempt = yield* Effect.fork(Effect.scoped(Effect.gen(function*() {
        const lease = yield* Lock.acquire(`accounts/${job.account}`, { wait: "30 seconds", lease: "10 seconds" })
        yield* settle(job, lease.fence)
      })))
      const exit = yield* Fiber.await(attempt)
      if (Exit.isInterrupted(exit)) {
        yield* Effect.logWarning(`lost ${job.account}, requeueing`)
        yield* Queue.offer(jobs, { ...job, attempt: job.attempt + 1 })
      } else if (Exit.isFailure(exit)) {
        yield* Effect.logWarning(`gave up on ${job.account}`, exit.cause)
      }
    })

  const worker = Effect.gen(function*() {
    while (true) {
      const job = yield* Queue.poll(jobs)
      if (job._tag === "None") return
      yield* runJob(job.value)
    }
  })
  yield* Effect.all(Array.from({ length: poolSize }, () => worker), { concurrency: "unbounded", discard: true })
  yield* Effect.logInfo("all jobs settled")
}).pipe(Effect.provide(DynamoLockStore.layerConfig()))

NodeRuntime.runMain(program)
