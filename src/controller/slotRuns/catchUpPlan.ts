import type { Pool } from 'pg';
import { checkCron } from '../../domain/cron';
import { effectiveTimeZone, type Job } from '../../domain/job';
import { holdCovers, slotsToCatchUp } from '../../domain/slotRules';
import { slotsBetween } from '../../domain/slots';
import { loadJudgedOutcomes, loadSlotEvidence, readCursors } from '../../store/slots';

/** Slots listed in one catch-up window at most (a week of a schedule firing every minute). */
const MAX_WINDOW_SLOTS = 10_080;
/**
 * A slot younger than this (or than its grace, if shorter) is left to the CronJob controller,
 * which makes a Job within seconds of its time: a catch-up is for the slots it did not make.
 */
const CRONJOB_MARGIN_MS = 10_000;

export interface ClusterCatchUpInput {
  /** The jobs to look at; those switched off or without a catch-up policy are passed over. */
  jobs: Job[];
  now: Date;
  defaultTimeZone: string;
  /**
   * The slots (ms since the epoch) each job has a Kubernetes Job for, by job id: those the CronJob
   * controller made and earlier catch-ups. Such a slot has its run, or is about to.
   */
  clusterSlots: Map<number, Set<number>>;
}

/**
 * The slots each job's catch-up policy runs when the controller takes the lead (after it was down,
 * or a fail-over), oldest first: among the job's slots within its window, those the cluster made
 * no Job for, nothing ran or claimed, no hold (the job switched off, the scheduler paused) kept
 * from running, and that are not judged yet or were judged `missed`. Slots before the job's
 * ledger began are never caught up.
 */
export async function slotsToCatchUpOnCluster(
  pool: Pool,
  input: ClusterCatchUpInput,
): Promise<Map<number, Date[]>> {
  const { now } = input;
  const candidates: { job: Job; slots: Date[] }[] = [];
  for (const job of input.jobs) {
    const check = checkCron(job.schedule);
    if (!job.enabled || !check.valid || !job.catchUp || job.catchUp.policy === 'none') continue;
    const margin = Math.min(CRONJOB_MARGIN_MS, job.lateAfterSeconds * 1000);
    const slots = slotsBetween(
      check.fields,
      effectiveTimeZone(job, input.defaultTimeZone),
      new Date(now.getTime() - job.catchUp.withinSeconds * 1000),
      new Date(now.getTime() - margin),
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
  const cursors = await readCursors(
    pool,
    candidates.map(({ job }) => job.id),
  );
  const evidence = await loadSlotEvidence(pool, ranges);
  const judged = await loadJudgedOutcomes(pool, ranges);
  for (const { job, slots } of candidates) {
    const judgedUntil = cursors.get(job.id)?.judgedUntil ?? job.createdAt;
    const holds = evidence.holds.get(job.id) ?? [];
    const inCluster = input.clusterSlots.get(job.id) ?? new Set<number>();
    const missed = slots.filter((slot) => {
      const at = slot.getTime();
      if (inCluster.has(at)) return false;
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
