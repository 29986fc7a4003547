import { z } from 'zod';
import { fireTimesAfter, nextFireTime } from './cron';
import { instantOfWallTime, wallTimeOf } from './timezone';
import { strictObjectError } from './zodErrors';

/**
 * The slot ledger (docs/slots.md): a slot is one fire time of a job's schedule in its time zone,
 * and every slot gets exactly one outcome once its grace has passed.
 */
export const SLOT_OUTCOMES = [
  'ran',
  'late',
  'skipped',
  'suspended',
  'paused',
  'missed',
  'duplicate',
] as const;
export type SlotOutcome = (typeof SLOT_OUTCOMES)[number];

/**
 * Why a run ran, for runs that name a slot: the schedule itself, a catch-up of a slot missed while
 * nothing fired, or a backfill someone asked for. A run started by hand names no slot.
 */
export type RunTrigger = 'schedule' | 'catchUp' | 'backfill';

/** The slot a run belongs to, and why it runs. */
export interface RunSlot {
  scheduledAt: Date;
  trigger: RunTrigger;
}

export const DEFAULT_LATE_AFTER_SECONDS = 60;
const MAX_LATE_AFTER_SECONDS = 86_400;

/** The grace: how long after its time a run may start and still count as on time (`ran`). */
export const lateAfterSecondsSchema = z
  .number({ error: 'must be a number of seconds' })
  .int({ error: 'must be a whole number of seconds' })
  .min(0, { error: 'must be at least 0' })
  .max(MAX_LATE_AFTER_SECONDS, { error: `must be at most ${MAX_LATE_AFTER_SECONDS}` });

const CATCH_UP_POLICIES = ['none', 'latest', 'all'] as const;
const DEFAULT_CATCH_UP_MAX_RUNS = 10;
const DEFAULT_CATCH_UP_WITHIN_SECONDS = 3_600;

/**
 * What runs after downtime or a fail-over: nothing (`none`, the default and the behaviour before
 * the ledger), the latest missed slot, or every missed slot (at most `maxRuns`, the latest ones),
 * always only slots within `withinSeconds` before the moment the scheduler looks.
 */
export const catchUpSchema = z.strictObject(
  {
    policy: z.enum(CATCH_UP_POLICIES, { error: `must be one of ${CATCH_UP_POLICIES.join(', ')}` }),
    maxRuns: z
      .number({ error: 'must be a number' })
      .int({ error: 'must be an integer' })
      .min(1, { error: 'must be at least 1' })
      .max(100, { error: 'must be at most 100' })
      .default(DEFAULT_CATCH_UP_MAX_RUNS),
    withinSeconds: z
      .number({ error: 'must be a number of seconds' })
      .int({ error: 'must be a whole number of seconds' })
      .min(60, { error: 'must be at least 60' })
      .max(604_800, { error: 'must be at most 604800 (a week)' })
      .default(DEFAULT_CATCH_UP_WITHIN_SECONDS),
  },
  { error: strictObjectError('must be an object { policy, maxRuns, withinSeconds }') },
);

export type CatchUp = z.output<typeof catchUpSchema>;

/** The policy of a job that has none stored: what every job did before the ledger. */
export const NO_CATCH_UP: CatchUp = Object.freeze({
  policy: 'none',
  maxRuns: DEFAULT_CATCH_UP_MAX_RUNS,
  withinSeconds: DEFAULT_CATCH_UP_WITHIN_SECONDS,
});

/** A job's last judged slot, as the job object shows it. */
export interface LastSlot {
  scheduledAt: Date;
  outcome: SlotOutcome;
}

/**
 * The slots of a schedule after `after` and at or before `until`, oldest first, at most `limit`
 * of them. `fields` is a validated expression (checkCron), read in `timeZone` with the DST rule of
 * `nextFireTime`.
 */
export function slotsBetween(
  fields: string,
  timeZone: string,
  after: Date,
  until: Date,
  limit: number,
): Date[] {
  const slots: Date[] = [];
  if (limit <= 0 || until.getTime() <= after.getTime()) return slots;
  for (const slot of fireTimesAfter(fields, timeZone, after)) {
    if (slot.getTime() > until.getTime() || slots.length >= limit) break;
    slots.push(slot);
  }
  return slots;
}

/** Whether `time` is a slot of the schedule. */
export function isSlot(fields: string, timeZone: string, time: Date): boolean {
  return nextFireTime(fields, timeZone, new Date(time.getTime() - 1)).getTime() === time.getTime();
}

/**
 * The slot a fire time stands for. A fire time that is a slot is its own. One that is not may be
 * a DST repeat: a wall time that a fall-back shows twice is one slot (its first occurrence), but
 * a cluster's CronJob fires at both (kubernetes#121594); the second is the first's slot again.
 * Anything else is answered as it is (it is no slot, and the judge never looks at it).
 */
export function slotOfFireTime(fields: string, timeZone: string, time: Date): Date {
  if (isSlot(fields, timeZone, time)) return time;
  const first = new Date(instantOfWallTime(wallTimeOf(time.getTime(), timeZone), timeZone));
  return first.getTime() < time.getTime() && isSlot(fields, timeZone, first) ? first : time;
}

const DAY_MS = 86_400_000;

/**
 * The latest slot at or before `now`, given `from`, a slot at or before `now`: after a long pause
 * of the process, the enumeration starts a day before `now` rather than at `from`.
 */
export function latestSlotAtOrBefore(fields: string, timeZone: string, from: Date, now: Date): Date {
  let start = from;
  if (now.getTime() - from.getTime() > DAY_MS) {
    const jump = nextFireTime(fields, timeZone, new Date(now.getTime() - DAY_MS));
    if (jump.getTime() <= now.getTime()) start = jump;
  }
  let latest = start;
  for (const slot of fireTimesAfter(fields, timeZone, start)) {
    if (slot.getTime() > now.getTime()) return latest;
    latest = slot;
  }
  return latest;
}

/** Most slots one backfill runs; a wider range is refused (400) rather than cut. */
export const MAX_BACKFILL_SLOTS = 1000;
const MAX_BACKFILL_CONCURRENCY = 10;

const instantSchema = z.iso
  .datetime({ offset: true, error: 'must be an ISO 8601 timestamp' })
  .transform((value) => new Date(value));

/** `POST /api/jobs/:id/backfill`: the slots in [from, to] run once each, `concurrency` at a time. */
export const backfillRequestSchema = z
  .strictObject(
    {
      from: instantSchema,
      to: instantSchema,
      concurrency: z
        .number({ error: 'must be a number' })
        .int({ error: 'must be an integer' })
        .min(1, { error: 'must be at least 1' })
        .max(MAX_BACKFILL_CONCURRENCY, { error: `must be at most ${MAX_BACKFILL_CONCURRENCY}` })
        .default(1),
    },
    { error: strictObjectError('request body must be a JSON object { "from", "to", "concurrency" }') },
  )
  .refine(({ from, to }) => !(from instanceof Date && to instanceof Date) || from.getTime() <= to.getTime(), {
    path: ['from'],
    error: 'must not be after to',
  });

export type BackfillRequest = z.output<typeof backfillRequestSchema>;

/**
 * `POST /api/jobs/:id/slots/claim`: a runner claims its run's slot before it starts the command.
 * `runKey` names the run (a Kubernetes Job's or pod's UID), so that a retried claim is the same.
 */
export const slotClaimSchema = z.strictObject(
  {
    scheduledAt: instantSchema,
    runKey: z
      .string({ error: 'is required and must be a string' })
      .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/, {
        error: 'must be 1-128 letters, digits, ".", "_", ":" or "-" (a Kubernetes Job or pod UID)',
      }),
  },
  { error: strictObjectError('request body must be a JSON object { "scheduledAt", "runKey" }') },
);
