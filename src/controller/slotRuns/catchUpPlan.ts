import type { Pool } from 'pg';
import type { Job } from '../../domain/job';
import { ledgerReadsOf, slotsToCatchUpNow } from '../../scheduling/catchUpSlots';

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
 * or a fail-over), oldest first (`slotsToCatchUpNow`), leaving to the CronJob controller the slots
 * it makes Jobs for and the newest, which it is about to.
 */
export function slotsToCatchUpOnCluster(
  pool: Pool,
  input: ClusterCatchUpInput,
): Promise<Map<number, Date[]>> {
  return slotsToCatchUpNow(ledgerReadsOf(pool), {
    jobs: input.jobs,
    now: input.now,
    defaultTimeZone: input.defaultTimeZone,
    marginMs: (job) => Math.min(CRONJOB_MARGIN_MS, job.lateAfterSeconds * 1000),
    underway: input.clusterSlots,
  });
}
