import type { Pool } from 'pg';
import { SlotPages, type SlotPageRange } from '../caching/slotPages';
import type { ReadFreshness } from '../caching/versionedRenders';
import type { Caller } from '../domain/caller';
import type { Clock } from '../domain/clock';
import { checkCron } from '../domain/cron';
import { conflict, invalid, notFound } from '../domain/errors';
import { effectiveTimeZone, type Job } from '../domain/job';
import { type BackfillRequest, MAX_BACKFILL_SLOTS, slotOfFireTime } from '../domain/slots';
import type { Runtime } from '../runtime/runtime';
import { DEFAULT_SLOT_LISTING, listBackfillSlots, type SlotListing } from './backfillSlots';
import { withTransaction } from '../store/database';
import { findJob } from '../store/jobs';
import type { ListChanges } from '../store/listChangeFeed';
import {
  type ClaimAnswer,
  claimSlot,
  finishBackfill,
  insertBackfill,
  listUnfinishedBackfills,
} from '../store/slots';
import { recordBackfillRequester } from '../store/runTriggers';
import { refuseBackfillOfWatched } from './watchedJobWrites';

/** The slot ledger's use cases: its history, claims on slots, backfills (docs/slots.md). */
export class SlotService {
  private readonly pages: SlotPages;

  constructor(
    private readonly pool: Pool,
    private readonly runtime: Runtime,
    private readonly clock: Clock,
    private readonly defaultTimeZone: string,
    changes: ListChanges | null = null,
    /** How a backfill's range is counted: a few slots per turn of the event loop (backfillSlots.ts). */
    private readonly slotListing: SlotListing = DEFAULT_SLOT_LISTING,
  ) {
    this.pages = new SlotPages(pool, changes);
  }

  /**
   * A job's judged slots in [from, to], newest first, as the JSON the API answers (`listSlotsJson`),
   * reused while no slot and no job was written since it was rendered (caching/slotPages.ts).
   */
  async listJson(jobId: number, range: SlotPageRange, freshness: ReadFreshness = 'current'): Promise<Buffer> {
    const body = await this.pages.get(jobId, range, freshness);
    if (body === null) throw notFound(`job ${jobId} not found`);
    return body;
  }

  /**
   * Claims a slot for a run about to start (the claim contract). A fire time that a DST fall-back
   * repeats claims the slot it repeats, so the double fire of a CronJob is one slot claimed twice.
   */
  async claim(
    jobId: number,
    scheduledAt: Date,
    runKey: string,
  ): Promise<{ slot: Date; answer: ClaimAnswer }> {
    const job = await this.require(jobId);
    const check = checkCron(job.schedule);
    const slot = check.valid
      ? slotOfFireTime(check.fields, effectiveTimeZone(job, this.defaultTimeZone), scheduledAt)
      : scheduledAt;
    // A transaction: the claim holds the evidence lock until it commits (store/slots.ts).
    const answer = await withTransaction(this.pool, (tx) =>
      claimSlot(tx, {
        jobId,
        scheduledAt: slot,
        runKey,
        allowDuplicates: job.allowDuplicateSlots,
        at: this.clock.now(),
      }),
    );
    return { slot, answer };
  }

  /**
   * Records a backfill of the job's slots in [from, to] and has the runtime run it: each slot once,
   * as the run of that slot. Refused for a range of more than 1000 slots or none, one reaching
   * into the future, a job switched off (a backfill runs its command, which a disabled job must
   * not), or a job with a backfill still going. Answers how many slots it runs. One asked for by a
   * caller (`by`, SERVICE_AUTH=kubernetes) is first checked as theirs (`Runtime.checkBackfill`),
   * and its runs name them (`triggeredBy`).
   */
  async backfill(jobId: number, request: BackfillRequest, by: Caller | null = null): Promise<number> {
    const job = await this.require(jobId);
    refuseBackfillOfWatched(job, this.runtime.watchedCronJobs !== undefined);
    const now = this.clock.now();
    if (request.to.getTime() > now.getTime()) {
      throw invalid(
        `to: must not be in the future (it is ${now.toISOString()}): a backfill runs slots that have passed`,
      );
    }
    if (!job.enabled) throw conflict(`job "${job.name}" is disabled; enable it to backfill`);
    const check = checkCron(job.schedule);
    if (!check.valid) throw invalid(`the job's schedule cannot be read: ${check.error}`);
    const { slots } = await listBackfillSlots(
      check.fields,
      effectiveTimeZone(job, this.defaultTimeZone),
      request.from,
      request.to,
      MAX_BACKFILL_SLOTS,
      this.slotListing,
    );
    if (slots === null) {
      throw invalid(
        `from: the range holds more than ${MAX_BACKFILL_SLOTS} slots of the job's schedule; backfill it in parts`,
      );
    }
    if (slots.length === 0) throw invalid("from: the range holds no slot of the job's schedule");
    if (by) await this.runtime.checkBackfill?.(job, by);
    const backfill = await insertBackfill(this.pool, {
      jobId,
      slots,
      concurrency: request.concurrency,
      requestedAt: now,
      callerJobs: by && this.runtime.makesBackfillRunsAsCaller ? 'creating' : null,
    });
    if (!backfill) {
      const going = (await listUnfinishedBackfills(this.pool)).find((each) => each.jobId === jobId);
      const progress = going ? ` (${going.started} of ${going.slots.length} slots started)` : '';
      throw conflict(`job "${job.name}" has a backfill in progress${progress}; wait for it to finish`);
    }
    try {
      if (by) await recordBackfillRequester(this.pool, backfill.id, by.username);
      await this.runtime.backfill(job, backfill, by);
    } catch (error) {
      // Refused: it never runs, and does not keep the next one out.
      await finishBackfill(this.pool, backfill.id, now);
      throw error;
    }
    return slots.length;
  }

  private async require(jobId: number): Promise<Job> {
    const job = await findJob(this.pool, jobId);
    if (!job) throw notFound(`job ${jobId} not found`);
    return job;
  }
}
