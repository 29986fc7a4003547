import { checkCron } from '../../domain/cron';
import { effectiveTimeZone, type Job } from '../../domain/job';
import { holdCovers, slotsToCatchUp } from '../../domain/slotRules';
import { slotsBetween } from '../../domain/slots';
import type { LocalRuntimeStore } from './localRuntimeStore';

/** Slots listed in one catch-up window at most (a week of a schedule firing every minute). */
const MAX_WINDOW_SLOTS = 10_080;

/**
 * The slots each job's catch-up policy runs when a process takes the lead (after downtime or a
 * fail-over), oldest first: among the job's slots within its window, those nothing ran for, that
 * no hold (the job switched off, the scheduler paused) kept from running, and that are not judged
 * yet or were judged `missed`. Slots before the job's ledger began (judged before it, with no
 * outcome stored) are never caught up.
 */
export async function slotsToCatchUpOnTakeover(
  store: LocalRuntimeStore,
  jobs: Iterable<Job>,
  now: Date,
  defaultTimeZone: string,
): Promise<Map<number, Date[]>> {
  const candidates: { job: Job; slots: Date[] }[] = [];
  for (const job of jobs) {
    const check = checkCron(job.schedule);
    if (!job.enabled || !check.valid || !job.catchUp || job.catchUp.policy === 'none') continue;
    const windowStart = new Date(now.getTime() - job.catchUp.withinSeconds * 1000);
    const slots = slotsBetween(
      check.fields,
      effectiveTimeZone(job, defaultTimeZone),
      windowStart,
      now,
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
  const ids = candidates.map(({ job }) => job.id);
  const cursors = await store.slots.readCursors(ids);
  const evidence = await store.slots.loadEvidence(ranges);
  const judged = await store.slots.loadJudgedOutcomes(ranges);
  for (const { job, slots } of candidates) {
    const judgedUntil = cursors.get(job.id)?.judgedUntil ?? job.createdAt;
    const holds = evidence.holds.get(job.id) ?? [];
    const missed = slots.filter((slot) => {
      const at = slot.getTime();
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
