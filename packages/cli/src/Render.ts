/**
 * How locks and semaphores look on a terminal and in `--json`: durations, the data payload, aligned tables.
 *
 * @since 1.0.0
 */
import * as LockRecord from "@leasehold/core/record/LockRecord"
import * as ReadWriteMode from "@leasehold/core/record/ReadWriteMode"
import * as SemaphoreRecord from "@leasehold/core/record/SemaphoreRecord"
import * as LeaseSession from "@leasehold/core/session/LeaseSession"
import type * as DynamoLockItems from "@leasehold/dynamodb/DynamoLockItems"

/**
 * Where a lease stands at the CLI's `now`, judged as the library judges a takeover when clocks are trusted within
 * `maxClockSkew`: "held" until `leaseUntil`; "expiring" once it has passed but not by the skew bound, when the holder
 * may still be renewing on a clock that is behind and no acquirer takes it over yet; "expired" after that, when the
 * next acquirer does (a store in observed mode waits instead until it has watched the lease go unrenewed for its
 * length). A lock without a holder is "free".
 *
 * @since 1.0.0
 * @category models
 */
export type LeaseState = "free" | "held" | "expiring" | "expired"

const leaseState = (leaseUntil: number, now: number, available: boolean): Exclude<LeaseState, "free"> =>
  leaseUntil >= now ? "held" : available ? "expired" : "expiring"

/**
 * A lock as `--json` prints it: the stored record plus what an operator derives from it at `now`.
 *
 * @since 1.0.0
 * @category models
 */
export interface LockView {
  readonly name: string
  /** Whether the record has a holder, whether or not its lease has run out (`state` says which). */
  readonly held: boolean
  /** Where the lease stands (see `LeaseState`). */
  readonly state: LeaseState
  readonly holder: string | null
  readonly owner: string | null
  readonly fence: number
  /** ISO time, or null when free. */
  readonly leaseUntil: string | null
  readonly leaseMs: number
  /** `leaseUntil - now`: negative once the lease ran out without a renew. null when free. */
  readonly leaseRemainingMs: number | null
  /** Whether the holder's lease ran out (it stopped renewing, or clocks disagree): `state` is expiring or expired. */
  readonly expired: boolean
  /** ISO time from which an acquirer may take the lock over (`leaseUntil` plus the skew bound); null when free. */
  readonly takeoverAt: string | null
  /** `takeoverAt - now`: how long until an acquirer may take the lock over, negative once it may. null when free. */
  readonly takeoverInMs: number | null
  readonly acquiredAt: string | null
  /** How long the current owner has held the lock. null when free. */
  readonly ageMs: number | null
  readonly data: string | null
  /**
   * The id of the lease session the lock is held under, or null: its lease is then the session's (the fields above
   * show the session's record when it was read, and none of the lock's own fixed ones).
   */
  readonly session: string | null
  /** Whether that session has ended (its record gone or released): the next acquirer that judges it takes the lock. */
  readonly sessionEnded: boolean
}

/**
 * A lock at `now`, its lease judged with the skew bound `maxClockSkewMs`. For a lock under a lease session, `session`
 * is the session's record when it was read (`{ record: undefined }`: there is none): the lock's lease is the
 * session's. Not read, the lease fields say nothing.
 *
 * @since 1.0.0
 * @category constructors
 */
export const view = (
  record: LockRecord.LockRecord,
  now: number,
  maxClockSkewMs: number,
  session?: { readonly record: LockRecord.LockRecord | undefined }
): LockView => {
  const sessionId = LeaseSession.sessionOf(record)
  if (sessionId !== undefined) return underSession(record, sessionId, now, maxClockSkewMs, session)
  const held = LockRecord.isHeld(record)
  return {
    name: record.name,
    held,
    state: held ? leaseState(record.leaseUntil, now, LockRecord.isAvailableAt(record, now, maxClockSkewMs)) : "free",
    holder: record.holder ?? null,
    owner: record.owner ?? null,
    fence: record.fence,
    leaseUntil: held ? new Date(record.leaseUntil).toISOString() : null,
    leaseMs: record.leaseMs,
    leaseRemainingMs: held ? record.leaseUntil - now : null,
    expired: held && record.leaseUntil < now,
    takeoverAt: held ? new Date(record.leaseUntil + maxClockSkewMs).toISOString() : null,
    takeoverInMs: held ? record.leaseUntil + maxClockSkewMs - now : null,
    acquiredAt: held && record.acquiredAt !== undefined ? new Date(record.acquiredAt).toISOString() : null,
    ageMs: held && record.acquiredAt !== undefined ? now - record.acquiredAt : null,
    data: record.data ?? null,
    session: null,
    sessionEnded: false
  }
}

/** A lock under the session `id`: its lease is the session's record's, when it was read. */
const underSession = (
  record: LockRecord.LockRecord,
  id: string,
  now: number,
  maxClockSkewMs: number,
  session: { readonly record: LockRecord.LockRecord | undefined } | undefined
): LockView => {
  const own = view({ ...record, session: undefined, leaseUntil: 0, leaseMs: 0 }, now, maxClockSkewMs)
  const alive = session?.record !== undefined && session.record.owner === id ? session.record : undefined
  const ended = session !== undefined && alive === undefined
  const lease = alive === undefined
    ? {
      state: ended ? "expired" as const : "held" as const,
      leaseUntil: null,
      leaseMs: 0,
      leaseRemainingMs: null,
      expired: ended,
      takeoverAt: null,
      takeoverInMs: null
    }
    : (({ expired, leaseMs, leaseRemainingMs, leaseUntil, state, takeoverAt, takeoverInMs }) => ({
      state,
      leaseUntil,
      leaseMs,
      leaseRemainingMs,
      expired,
      takeoverAt,
      takeoverInMs
    }))(view(alive, now, maxClockSkewMs))
  return { ...own, ...lease, session: id, sessionEnded: ended }
}

/**
 * A duration for people: "850ms", "12.3s", "4m05s", "2h03m", "3d04h".
 *
 * @since 1.0.0
 * @category formatting
 */
export const duration = (ms: number): string => {
  const sign = ms < 0 ? "-" : ""
  const abs = Math.abs(ms)
  if (abs < 1000) return `${sign}${Math.round(abs)}ms`
  if (abs < 60_000) return `${sign}${(abs / 1000).toFixed(1)}s`
  const pad = (n: number) => String(n).padStart(2, "0")
  const s = Math.floor(abs / 1000)
  if (s < 3600) return `${sign}${Math.floor(s / 60)}m${pad(s % 60)}s`
  if (s < 86_400) return `${sign}${Math.floor(s / 3600)}h${pad(Math.floor(s / 60) % 60)}m`
  return `${sign}${Math.floor(s / 86_400)}d${pad(Math.floor(s / 3600) % 24)}h`
}

/**
 * The lease remaining, for a lock's or a semaphore holder's view: "-" when free, "12.3s" while held, "ran out 3.2s
 * ago" once it has run out.
 *
 * @since 1.0.0
 * @category formatting
 */
export const remaining = (lock: { readonly leaseRemainingMs: number | null }): string =>
  lock.leaseRemainingMs === null
    ? "-"
    : lock.leaseRemainingMs < 0
    ? `ran out ${duration(-lock.leaseRemainingMs)} ago`
    : duration(lock.leaseRemainingMs)

/**
 * Where a lease stands, as a table cell: "-" when free, "12.3s left" while held, "expiring: ran out 3.2s ago, can be
 * taken over in 6.8s" within the skew bound after it ran out, "expired 32.0s ago" after that (counted from the
 * lease's end).
 *
 * @since 1.0.0
 * @category formatting
 */
export const lease = (lease: {
  readonly state: LeaseState
  readonly leaseRemainingMs: number | null
  readonly takeoverInMs: number | null
  readonly session?: string | null | undefined
  readonly sessionEnded?: boolean | undefined
}): string => {
  if (lease.session !== undefined && lease.session !== null) {
    if (lease.sessionEnded === true) return `its session ${lease.session} ended: the next acquirer takes it`
    if (lease.leaseRemainingMs === null) return `under session ${lease.session}`
  }
  const left = lease.leaseRemainingMs ?? 0
  switch (lease.state) {
    case "free":
      return "-"
    case "held":
      return `${duration(left)} left`
    case "expiring":
      return `expiring: ran out ${duration(-left)} ago, can be taken over in ${duration(lease.takeoverInMs ?? 0)}`
    case "expired":
      return `expired ${duration(-left)} ago`
  }
}

/**
 * The data payload for people: pretty JSON when it parses as JSON, the string as it is otherwise.
 *
 * @since 1.0.0
 * @category formatting
 */
export const data = (payload: string): string => {
  try {
    return JSON.stringify(JSON.parse(payload), null, 2)
  } catch {
    return payload
  }
}

/**
 * The data payload decoded for `--json`: the JSON value when it parses, else the string.
 *
 * @since 1.0.0
 * @category formatting
 */
export const decodedData = (payload: string | null): unknown => {
  if (payload === null) return null
  try {
    return JSON.parse(payload)
  } catch {
    return payload
  }
}

/**
 * Rows aligned in columns under a header, two spaces apart; the last column is not padded.
 *
 * @since 1.0.0
 * @category formatting
 */
export const columns = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): string => {
  const all = [header, ...rows]
  const widths = header.map((_, i) => Math.max(...all.map((row) => (row[i] ?? "").length)))
  return all
    .map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join("  "))
    .join("\n")
}

/**
 * The `list` and `watch` table header.
 *
 * @since 1.0.0
 * @category formatting
 */
export const lockHeader: ReadonlyArray<string> = ["NAME", "HOLDER", "FENCE", "LEASE", "AGE"]

/**
 * One lock as a `list` / `watch` row.
 *
 * @since 1.0.0
 * @category formatting
 */
export const lockRow = (lock: LockView): ReadonlyArray<string> => [
  lock.name,
  lock.holder ?? (lock.held ? "?" : "(free)"),
  String(lock.fence),
  lease(lock),
  lock.ageMs === null ? "-" : duration(lock.ageMs)
]

/**
 * One lock as a line of `key=value` pairs, for logs and non-terminal `watch` output.
 *
 * @since 1.0.0
 * @category formatting
 */
export const lockLine = (lock: LockView): string =>
  lock.held
    ? `name=${JSON.stringify(lock.name)} holder=${JSON.stringify(lock.holder ?? "?")} fence=${lock.fence} ` +
      `remaining=${remaining(lock).replace(/ /g, "_")} state=${lock.state}`
    : `name=${JSON.stringify(lock.name)} free fence=${lock.fence}`

/**
 * One holder of a semaphore's permits, as `--json` prints it: the stored entry plus what an operator derives from it
 * at `now`.
 *
 * @since 1.0.0
 * @category models
 */
export interface PermitHolderView {
  readonly holder: string
  readonly owner: string
  readonly permits: number
  readonly fence: number
  /** ISO time; null for a holder under a lease session whose record was not read. */
  readonly leaseUntil: string | null
  readonly leaseMs: number
  /** `leaseUntil - now`: negative once the lease ran out without a renew. */
  readonly leaseRemainingMs: number | null
  /** Whether the holder's lease ran out (it stopped renewing, or clocks disagree): `state` is expiring or expired. */
  readonly expired: boolean
  /** Where the lease stands (see `LeaseState`): once "expired", the next acquirer that needs its permits removes it. */
  readonly state: Exclude<LeaseState, "free">
  /** ISO time from which an acquirer may remove this holder (`leaseUntil` plus the skew bound). */
  readonly takeoverAt: string | null
  /** `takeoverAt - now`: negative once an acquirer may remove it. */
  readonly takeoverInMs: number | null
  readonly acquiredAt: string
  /** How long this holder has had its permits. */
  readonly ageMs: number
  readonly data: string | null
  /** The lease session the permits are held under, or null: their lease is then the session's (as a lock's). */
  readonly session: string | null
  /** Whether that session has ended: the next acquirer that needs the permits removes them. */
  readonly sessionEnded: boolean
  /** A read/write lock's holder: how it holds the lock (a writer holds every permit); null for a semaphore's. */
  readonly mode: "read" | "write" | null
}

/**
 * A semaphore as `--json` prints it: its limit, the permits in use, the last fence issued, and every holder (expired
 * ones included, until an acquirer removes them) in the order of their fences.
 *
 * @since 1.0.0
 * @category models
 */
export interface SemaphoreView {
  readonly name: string
  readonly limit: number
  readonly used: number
  /** `limit - used`: expired holders count as holders until someone removes them. */
  readonly available: number
  readonly fence: number
  readonly holders: ReadonlyArray<PermitHolderView>
  /** Whether the record is a read/write lock's (`ReadWriteLock`): its holders are readers and a writer. */
  readonly readWrite: boolean
  /** The waiter named next, if one reserved: it keeps out whoever would not fit beside it until `until`. */
  readonly reservation: ReservationView | null
}

/**
 * A waiter's reservation of a semaphore or read/write lock, as `--json` prints it.
 *
 * @since 1.0.0
 * @category models
 */
export interface ReservationView {
  /** The reserving acquisition's owner id. */
  readonly owner: string
  /** The permits it waits for (a read/write lock's writer waits for all of them). */
  readonly permits: number
  /** ISO time after which the reservation lapses. */
  readonly until: string
  /** ISO time from which it keeps others out. */
  readonly from: string
  /** ISO time the reserver began to wait: an earlier waiter takes the reservation over. */
  readonly waitingSince: string
}

/**
 * The records of lease sessions, by session id, as read (`undefined`: there is none). A session missing from the map
 * was not read.
 *
 * @since 1.0.0
 * @category models
 */
export type SessionRecords = ReadonlyMap<string, LockRecord.LockRecord | undefined>

/**
 * A holder at `now`, its lease judged with the skew bound `maxClockSkewMs`; a holder under a lease session by its
 * session's record in `sessions`, as a lock under one is (see `view`).
 *
 * @since 1.0.0
 * @category constructors
 */
export const permitHolderView = (
  holder: SemaphoreRecord.PermitHolder,
  now: number,
  maxClockSkewMs: number,
  sessions?: SessionRecords
): PermitHolderView => {
  const own = ownPermitHolderView(holder, now, maxClockSkewMs)
  const id = LeaseSession.sessionOf(holder)
  if (id === undefined) return own
  const session = sessions?.has(id) === true ? { record: sessions.get(id) } : undefined
  const lock = view(SemaphoreRecord.permitRecord("", holder), now, maxClockSkewMs, session)
  return {
    ...own,
    leaseUntil: lock.leaseUntil,
    leaseMs: lock.leaseMs,
    leaseRemainingMs: lock.leaseRemainingMs,
    expired: lock.expired,
    state: lock.state === "free" ? "held" : lock.state,
    takeoverAt: lock.takeoverAt,
    takeoverInMs: lock.takeoverInMs,
    session: id,
    sessionEnded: lock.sessionEnded
  }
}

const ownPermitHolderView = (
  holder: SemaphoreRecord.PermitHolder,
  now: number,
  maxClockSkewMs: number
): PermitHolderView => ({
  holder: holder.holder,
  owner: holder.owner,
  permits: holder.permits,
  fence: holder.fence,
  leaseUntil: new Date(holder.leaseUntil).toISOString(),
  leaseMs: holder.leaseMs,
  leaseRemainingMs: holder.leaseUntil - now,
  expired: holder.leaseUntil < now,
  state: leaseState(holder.leaseUntil, now, SemaphoreRecord.isExpiredAt(holder, now, maxClockSkewMs)),
  takeoverAt: new Date(holder.leaseUntil + maxClockSkewMs).toISOString(),
  takeoverInMs: holder.leaseUntil + maxClockSkewMs - now,
  acquiredAt: new Date(holder.acquiredAt).toISOString(),
  ageMs: now - holder.acquiredAt,
  data: holder.data ?? null,
  session: null,
  sessionEnded: false,
  mode: null
})

/**
 * A semaphore at `now`, its holders' leases judged with the skew bound `maxClockSkewMs`.
 *
 * @since 1.0.0
 * @category constructors
 */
export const semaphoreView = (
  record: SemaphoreRecord.SemaphoreRecord,
  now: number,
  maxClockSkewMs: number,
  sessions?: SessionRecords
): SemaphoreView => {
  const readWrite = record.readWrite === true
  const reservation = record.reservation
  return {
    name: record.name,
    limit: record.limit,
    used: record.used,
    available: record.limit - record.used,
    fence: record.fence,
    holders: record.holders.map((holder) => ({
      ...permitHolderView(holder, now, maxClockSkewMs, sessions),
      mode: readWrite ? ReadWriteMode.modeOf(holder) : null
    })),
    readWrite,
    reservation: reservation === undefined ? null : {
      owner: reservation.reservedBy,
      permits: reservation.reservedPermits,
      until: new Date(reservation.reservedUntil).toISOString(),
      from: new Date(reservation.reservedFrom).toISOString(),
      waitingSince: new Date(reservation.reservedSince).toISOString()
    }
  }
}

/** A holder's share in a cell: a read/write lock's holder by its mode, a semaphore's by its permits. */
const share = (holder: PermitHolderView): string => holder.mode ?? String(holder.permits)

/**
 * A semaphore's holders in one cell: each holder's name and permits, and "expiring" or "expired" where its lease ran
 * out (see `LeaseState`); "-" for none.
 *
 * @since 1.0.0
 * @category formatting
 */
export const holders = (semaphore: SemaphoreView): string =>
  semaphore.holders.length === 0
    ? "-"
    : semaphore.holders.map((holder) =>
      `${holder.holder} (${share(holder)}${holder.state === "held" ? "" : `, ${holder.state}`})`
    )
      .join(", ")

/**
 * The `list` and `watch` table header for semaphores.
 *
 * @since 1.0.0
 * @category formatting
 */
export const semaphoreHeader: ReadonlyArray<string> = ["SEMAPHORE", "USED", "LIMIT", "HOLDERS"]

/**
 * One semaphore as a `list` / `watch` row.
 *
 * @since 1.0.0
 * @category formatting
 */
export const semaphoreRow = (semaphore: SemaphoreView): ReadonlyArray<string> => [
  semaphore.readWrite ? `${semaphore.name} (read/write)` : semaphore.name,
  String(semaphore.used),
  String(semaphore.limit),
  holders(semaphore)
]

/**
 * One semaphore as a line of `key=value` pairs, for logs and non-terminal `watch` output.
 *
 * @since 1.0.0
 * @category formatting
 */
export const semaphoreLine = (semaphore: SemaphoreView): string =>
  `semaphore name=${JSON.stringify(semaphore.name)}${semaphore.readWrite ? " readWrite=true" : ""} ` +
  `used=${semaphore.used} limit=${semaphore.limit} ` +
  `holders=${JSON.stringify(semaphore.holders.length === 0 ? "" : holders(semaphore))}`

/**
 * The header of `inspect --semaphore`'s table of holders.
 *
 * @since 1.0.0
 * @category formatting
 */
export const permitHolderHeader: ReadonlyArray<string> = [
  "HOLDER",
  "OWNER",
  "PERMITS",
  "FENCE",
  "LEASE UNTIL",
  "LEASE",
  "AGE"
]

/**
 * One holder as a row of `inspect --semaphore`'s table.
 *
 * @since 1.0.0
 * @category formatting
 */
export const permitHolderRow = (holder: PermitHolderView): ReadonlyArray<string> => [
  holder.holder,
  holder.owner,
  holder.mode === null ? String(holder.permits) : `${holder.permits} (${holder.mode})`,
  String(holder.fence),
  holder.leaseUntil ?? "-",
  lease(holder),
  duration(holder.ageMs)
]

/**
 * The locks and semaphores of a page, as `list` and `watch` show them.
 *
 * @since 1.0.0
 * @category models
 */
export interface Listing {
  readonly locks: ReadonlyArray<LockView>
  readonly semaphores: ReadonlyArray<SemaphoreView>
}

/**
 * The items of a page as views at `now`, locks and semaphores apart, leases judged with the skew bound
 * `maxClockSkewMs`.
 *
 * @since 1.0.0
 * @category constructors
 */
export const listing = (items: ReadonlyArray<DynamoLockItems.Item>, now: number, maxClockSkewMs: number): Listing => {
  // The sessions' records on the same page give the locks under them their lease.
  const sessions = new Map<string, LockRecord.LockRecord>()
  for (const item of items) {
    if (item._tag === "Lock" && LeaseSession.isRecordName(item.record.name) && item.record.owner !== undefined) {
      sessions.set(item.record.owner, item.record)
    }
  }
  return listingWith(items, now, maxClockSkewMs, sessions)
}

const listingWith = (
  items: ReadonlyArray<DynamoLockItems.Item>,
  now: number,
  maxClockSkewMs: number,
  sessions: ReadonlyMap<string, LockRecord.LockRecord>
): Listing => ({
  locks: items.flatMap((item) => {
    if (item._tag !== "Lock") return []
    const id = LeaseSession.sessionOf(item.record)
    const session = id === undefined || !sessions.has(id) ? undefined : { record: sessions.get(id) }
    return [view(item.record, now, maxClockSkewMs, session)]
  }),
  semaphores: items.flatMap((item) =>
    item._tag === "Semaphore" ? [semaphoreView(item.record, now, maxClockSkewMs, sessions)] : []
  )
})

/**
 * The locks that have a holder, whether its lease runs or has run out (a dead holder's record stays until someone
 * takes the lock over or releases it), and the semaphores with holders: what `list --held` shows.
 *
 * @since 1.0.0
 * @category filters
 */
export const held = (listing: Listing): Listing => ({
  locks: listing.locks.filter((lock) => lock.held),
  semaphores: listing.semaphores.filter((semaphore) => semaphore.holders.length > 0)
})

/**
 * The locks whose holder's lease has run out (expiring or expired), and the semaphores with such a holder: what
 * `list --expired` shows, the records of holders that stopped renewing.
 *
 * @since 1.0.0
 * @category filters
 */
export const expired = (listing: Listing): Listing => ({
  locks: listing.locks.filter((lock) => lock.expired),
  semaphores: listing.semaphores.filter((semaphore) => semaphore.holders.some((holder) => holder.expired))
})

/**
 * A listing as tables: the locks, then the semaphores, each left out when there are none; `empty` when both are.
 *
 * @since 1.0.0
 * @category formatting
 */
export const tables = (listing: Listing, empty: string): string => {
  const parts = [
    ...(listing.locks.length === 0 ? [] : [columns(lockHeader, listing.locks.map(lockRow))]),
    ...(listing.semaphores.length === 0
      ? []
      : [columns(semaphoreHeader, listing.semaphores.map(semaphoreRow))])
  ]
  return parts.length === 0 ? empty : parts.join("\n\n")
}
