import { checkCron, fireTimesAfter, nextFireTime } from '../domain/cron';
import { summarizeFireTimes } from '../domain/fireTimeCounts';
import type { EarlierSchedule, SlotCursor } from '../store/slots';

/** One schedule of a job over a stretch of time: its slots up to `until` (null: from then on). */
interface ScheduleSpan {
  fields: string;
  timeZone: string;
  until: Date | null;
}

/** What a pass of the judge does with one cursor. */
export interface CursorPlan {
  /** The slots to judge now, oldest first. */
  slots: Date[];
  /** Where the cursor moves once they are judged (every slot at or before it judged). */
  judgedUntil: Date;
  /** The earlier schedules still to be read after the move. */
  earlierSchedules: EarlierSchedule[];
  /** When the next slot is to be judged (its time plus the grace); null: never (a schedule that does not fire). */
  dueAt: Date | null;
}

/**
 * Plans a cursor's move at `now`: the slots whose grace has passed (and that come before
 * `deferBefore`, the first slot a runtime is about to run), read with the schedule in force at
 * each one's time, at most `maxSlots` of them (a long downtime is judged over several passes).
 * Null when the cursor's schedule is one this version cannot read: it is left alone.
 */
export function planCursor(
  cursor: SlotCursor,
  now: Date,
  defaultTimeZone: string,
  deferBefore: Date | null,
  maxSlots: number,
  cache: PassCache = newPassCache(),
): CursorPlan | null {
  const spans = spansOf(cursor, defaultTimeZone, cache);
  if (!spans) return null;
  const graceMs = cursor.lateAfterSeconds * 1000;
  const horizon = judgingHorizon(cursor, now, deferBefore);
  const slots: Date[] = [];
  let after = cursor.judgedUntil;
  let remaining = spans;
  // The first slot not judged by this pass, found by the same walk where it can be.
  let next: Date | null | undefined;
  while (remaining.length > 0) {
    const span = remaining[0]!;
    const limit = Math.min(horizon, span.until?.getTime() ?? Infinity);
    const walk = cachedWalk(cache, span, after, limit, maxSlots - slots.length);
    slots.push(...walk.slots);
    if (walk.capped) {
      after = walk.slots[walk.slots.length - 1] ?? after;
      next = walk.beyond;
      break;
    }
    after = new Date(Math.max(after.getTime(), limit));
    if (span.until === null || span.until.getTime() > horizon) {
      if (walk.beyond && (span.until === null || walk.beyond.getTime() <= span.until.getTime()))
        next = walk.beyond;
      break;
    }
    remaining = remaining.slice(1);
  }
  if (next === undefined) next = nextSlotAfter(remaining, after);
  return {
    slots,
    judgedUntil: after.getTime() > cursor.judgedUntil.getTime() ? after : cursor.judgedUntil,
    earlierSchedules: remaining.flatMap((span, k) =>
      span.until === null
        ? []
        : [{ ...earlierOf(cursor, spans.length - remaining.length + k), until: span.until }],
    ),
    dueAt: next ? new Date(next.getTime() + graceMs) : null,
  };
}

/** The last instant whose slots a pass at `now` judges: their grace passed, and before `deferBefore`. */
function judgingHorizon(cursor: SlotCursor, now: Date, deferBefore: Date | null): number {
  const horizon = now.getTime() - cursor.lateAfterSeconds * 1000;
  return deferBefore ? Math.min(horizon, deferBefore.getTime() - 1) : horizon;
}

/** Shortest time between two slots: a five-field schedule fires at most once a minute. */
const MIN_SLOT_INTERVAL_MS = 60_000;

/**
 * Whether more than `maxSlots` slots may be due (a long gap: a restore, a long outage, a cursor
 * moved by hand): only then is a stretch looked for. Told from the times alone, without a walk.
 */
export function mayHoldLongGap(
  cursor: SlotCursor,
  now: Date,
  deferBefore: Date | null,
  maxSlots: number,
): boolean {
  return (
    judgingHorizon(cursor, now, deferBefore) - cursor.judgedUntil.getTime() > maxSlots * MIN_SLOT_INTERVAL_MS
  );
}

/** Slots after a cursor judged together, all alike (docs/slots.md, "Long gaps"). */
export interface StretchPlan {
  /** The schedule they are the fire times of: the canonical fields and the zone they are read in. */
  fields: string;
  timeZone: string;
  first: Date;
  last: Date;
  count: number;
  /** Where the cursor moves (every slot at or before it judged), what is left of the earlier schedules, when next due. */
  judgedUntil: Date;
  earlierSchedules: EarlierSchedule[];
  dueAt: Date | null;
}

/** Fewer slots than this are judged one by one, as ever. */
const MIN_STRETCH_SLOTS = 2;

/**
 * Plans a stretch: the slots after the cursor, read with the schedule in force after it, up to
 * before `evidenceAt` (the first instant after the cursor at which something is known of the job:
 * a run, a claim, a `skipped` row, an attempt starting or ending, a hold beginning or ending), and
 * no further than a pass judges (`planCursor`'s horizon). Nothing being known of any of them, they
 * all have one outcome, judged once for all. Counted, not listed (summarizeFireTimes): months of a
 * job firing every minute cost about what one day does. Null when fewer than two slots are there
 * (or the schedule cannot be read): they are judged one by one.
 */
export function planStretch(
  cursor: SlotCursor,
  now: Date,
  defaultTimeZone: string,
  deferBefore: Date | null,
  evidenceAt: Date | null,
  cache: PassCache = newPassCache(),
): StretchPlan | null {
  const spans = spansOf(cursor, defaultTimeZone, cache);
  if (!spans) return null;
  const span = spans[0]!;
  const end = Math.min(
    judgingHorizon(cursor, now, deferBefore),
    span.until?.getTime() ?? Infinity,
    evidenceAt ? evidenceAt.getTime() - 1 : Infinity,
  );
  if (end <= cursor.judgedUntil.getTime()) return null;
  const summary = summarizeFireTimes(span.fields, span.timeZone, cursor.judgedUntil, new Date(end));
  if (summary.count < MIN_STRETCH_SLOTS) return null;
  const judgedUntil = new Date(end);
  // The first schedule is done with once its last instant is judged.
  const remaining = span.until !== null && span.until.getTime() <= end ? spans.slice(1) : spans;
  const next = nextSlotAfter(remaining, judgedUntil);
  return {
    fields: span.fields,
    timeZone: span.timeZone,
    first: summary.first!,
    last: summary.last!,
    count: summary.count,
    judgedUntil,
    earlierSchedules: remaining.flatMap((each, k) =>
      each.until === null
        ? []
        : [{ ...earlierOf(cursor, spans.length - remaining.length + k), until: each.until }],
    ),
    dueAt: next ? new Date(next.getTime() + cursor.lateAfterSeconds * 1000) : null,
  };
}

/** The schedule in force at `slot` among the cursor's (earlier ones first), as a stretch keeps it. */
export function scheduleAt(
  cursor: SlotCursor,
  slot: Date,
  defaultTimeZone: string,
  cache: PassCache = newPassCache(),
): { fields: string; timeZone: string } | null {
  const spans = spansOf(cursor, defaultTimeZone, cache);
  const span = spans?.find((each) => each.until === null || slot.getTime() <= each.until.getTime());
  return span ? { fields: span.fields, timeZone: span.timeZone } : null;
}

/**
 * When the cursor of a job created at `createdAt` is first due: the judge's plan for a new cursor
 * (it stands at the job's creation, with nothing to judge yet), made once by the creation rather
 * than by a pass that reads every new job. Null when the schedule cannot be read or never fires:
 * such a cursor is left for the judge, as before. Jobs created together share `cache`, as the jobs
 * of a pass do.
 */
export function firstDueAt(
  job: Pick<SlotCursor, 'schedule' | 'timezone' | 'lateAfterSeconds'>,
  createdAt: Date,
  defaultTimeZone: string,
  cache: PassCache = newPassCache(),
): Date | null {
  const fresh: SlotCursor = {
    ...job,
    jobId: 0,
    jobName: '',
    judgedUntil: createdAt,
    dueAt: null,
    earlierSchedules: [],
    catchUp: null,
  };
  return planCursor(fresh, createdAt, defaultTimeZone, null, 1, cache)?.dueAt ?? null;
}

type Walk = ReturnType<typeof walkSpan>;

/**
 * What one pass of the judge has read already: schedules checked, and walks made. Reading a
 * schedule is most of a pass's cost, and jobs of one schedule and grace judged together stand at
 * the same place and walk to the same horizon (every job firing every minute, say): each is read
 * once for all of them.
 */
export interface PassCache {
  checks: Map<string, ReturnType<typeof checkCron>>;
  walks: Map<string, Walk>;
}

export function newPassCache(): PassCache {
  return { checks: new Map(), walks: new Map() };
}

function cachedWalk(cache: PassCache, span: ScheduleSpan, after: Date, limit: number, max: number): Walk {
  const key = `${span.fields}|${span.timeZone}|${after.getTime()}|${limit}|${max}`;
  let walk = cache.walks.get(key);
  if (!walk) cache.walks.set(key, (walk = walkSpan(span, after, limit, max)));
  return walk;
}

/**
 * The slots of a span after `after` and at or before `limit`, at most `max` (`capped` when more
 * were due), and the first slot past them (`beyond`; null when the schedule never fires again).
 */
function walkSpan(
  span: ScheduleSpan,
  after: Date,
  limit: number,
  max: number,
): { slots: Date[]; capped: boolean; beyond: Date | null } {
  // Most walks end at their first slot: a new job's, or a cursor judged up to date. `nextFireTime`
  // remembers the fire time it found for each schedule, which answers every job of the schedule
  // until that time comes: a burst of creations then costs the judge one cron search, not one per
  // job (150 µs each).
  const first = safeNext(span, after);
  if (first === null || first.getTime() > limit) return { slots: [], capped: false, beyond: first };
  const slots: Date[] = [];
  try {
    for (const slot of fireTimesAfter(span.fields, span.timeZone, after)) {
      if (slot.getTime() > limit) return { slots, capped: false, beyond: slot };
      if (slots.length >= max) return { slots, capped: true, beyond: slot };
      slots.push(slot);
    }
  } catch {
    // An expression that stops firing (a date that never comes again): nothing beyond.
  }
  return { slots, capped: false, beyond: null };
}

/** The earlier schedules then the current one, each readable; null if one is not. */
function spansOf(cursor: SlotCursor, defaultTimeZone: string, cache: PassCache): ScheduleSpan[] | null {
  const all = [
    ...cursor.earlierSchedules,
    { schedule: cursor.schedule, timezone: cursor.timezone, until: null },
  ];
  const spans: ScheduleSpan[] = [];
  for (const each of all) {
    let check = cache.checks.get(each.schedule);
    if (!check) cache.checks.set(each.schedule, (check = checkCron(each.schedule)));
    if (!check.valid) return null;
    spans.push({ fields: check.fields, timeZone: each.timezone ?? defaultTimeZone, until: each.until });
  }
  return spans;
}

/** The stored form of the earlier schedule at `index` (its schedule and zone as written). */
function earlierOf(cursor: SlotCursor, index: number): Omit<EarlierSchedule, 'until'> {
  const { schedule, timezone } = cursor.earlierSchedules[index]!;
  return { schedule, timezone };
}

/** The first slot after `after`, in the span in force then. */
function nextSlotAfter(spans: ScheduleSpan[], after: Date): Date | null {
  let from = after;
  for (const span of spans) {
    const next = safeNext(span, from);
    if (next && (span.until === null || next.getTime() <= span.until.getTime())) return next;
    if (span.until) from = new Date(Math.max(from.getTime(), span.until.getTime()));
  }
  return null;
}

function safeNext(span: ScheduleSpan, after: Date): Date | null {
  try {
    return nextFireTime(span.fields, span.timeZone, after);
  } catch {
    return null;
  }
}
