import { checkCron } from '../domain/cron';
import { effectiveTimeZone, type Job } from '../domain/job';
import { holdCovers, slotsToCatchUp } from '../domain/slotRules';
import { type SlotOutcome, slotsBetween } from '../domain/slots';
import type { Queryable } from '../store/database';
import {
  loadJudgedOutcomes,
  loadSlotEvidence,
  type RangeEvidence,
  readCursors,
  type SlotCursor,
  type SlotRange,
} from '../store/slots';

/** Slots listed in one catch-up window at most (a week of a schedule firing every minute). */
const MAX_WINDOW_SLOTS = 10_080;

/** What catch-up reads of the slot ledger. */
export interface LedgerReads {
  readCursors(jobIds: number[]): Promise<Map<number, SlotCursor>>;
  loadEvidence(ranges: SlotRange[]): Promise<RangeEvidence>;
  loadJudgedOutcomes(ranges: SlotRange[]): Promise<Map<number, Map<number, SlotOutcome>>>;
}

export function ledgerReadsOf(db: Queryable): LedgerReads {
  return {
    readCursors: (jobIds) => readCursors(db, jobIds),
    loadEvidence: (ranges) => loadSlotEvidence(db, ranges),
    loadJudgedOutcomes: (ranges) => loadJudgedOutcomes(db, ranges),
  };
}

export interface CatchUpQuestion {
  /** The jobs to look at; those switched off or without a catch-up policy are passed over. */
  jobs: Iterable<Job>;
  now: Date;
  defaultTimeZone: string;
  /**
   * How far before `now` a job's slots are looked at (default 0): on a cluster the newest are left
   * to the CronJob controller, which makes their Jobs within seconds.
   */
  marginMs?: (job: Job) => number;
  /** Slots (ms since the epoch) by job id whose run is on its way already (a cluster's Jobs). */
  underway?: Map<number, Set<number>>;
}

/**
 * The slots each job's catch-up policy runs when a process or the controller takes the lead (after
 * downtime or a fail-over), oldest first, by job id: among the job's slots within its window,
 * those nothing ran, claimed or is on its way for, that no hold (the job switched off, the
 * scheduler paused) kept from running, and that are not judged yet or were judged `missed`. Slots
 * before the job's ledger began (judged before it, with no outcome stored) are never caught up.
 */
export async function slotsToCatchUpNow(
  reads: LedgerReads,
  question: CatchUpQuestion,
): Promise<Map<number, Date[]>> {
  const { now } = question;
  const candidates: { job: Job; slots: Date[] }[] = [];
  for (const job of question.jobs) {
    const check = checkCron(job.schedule);
    if (!job.enabled || !check.valid || !job.catchUp || job.catchUp.policy === 'none') continue;
    const slots = slotsBetween(
      check.fields,
      effectiveTimeZone(job, question.defaultTimeZone),
      new Date(now.getTime() - job.catchUp.withinSeconds * 1000),
      new Date(now.getTime() - (question.marginMs?.(job) ?? 0)),
      MAX_WINDOW_SLOTS,
    );
    if (slots.length > 0) candidates.push({ job, slots });
  }
  const chosen = new Map<number, Date[]>();
  if (candidates.length === 0) return chosen;
  const ranges = candidates.map(({ job, slots }) => ({
    jobId: job.id,
    after: new Date(slots[0]!.getTime() - 1),
    until: slots[slots.length - 1]!,
  }));
  const cursors = await reads.readCursors(candidates.map(({ job }) => job.id));
  const evidence = await reads.loadEvidence(ranges);
  const judged = await reads.loadJudgedOutcomes(ranges);
  for (const { job, slots } of candidates) {
    const judgedUntil = cursors.get(job.id)?.judgedUntil ?? job.createdAt;
    const holds = evidence.holds.get(job.id) ?? [];
    const underway = question.underway?.get(job.id);
    const missed = slots.filter((slot) => {
      const at = slot.getTime();
      if (underway?.has(at)) return false;
      if (evidence.runs.get(job.id)?.has(at) || evidence.skipped.get(job.id)?.has(at)) return false;
      if (evidence.claims.get(job.id)?.has(at)) return false;
      if (holds.some((hold) => holdCovers(hold, slot))) return false;
      return at > judgedUntil.getTime() || judged.get(job.id)?.get(at) === 'missed';
    });
    const toRun = slotsToCatchUp(job.catchUp!, missed, now);
    if (toRun.length > 0) chosen.set(job.id, toRun);
  }
  return chosen;
}
