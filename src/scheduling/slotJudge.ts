import { setTimeout as sleep } from 'node:timers/promises';
import type { Pool } from 'pg';
import type { Clock } from '../domain/clock';
import { judgeSlot } from '../domain/slotRules';
import type { Logger } from '../logging/logger';
import type { RuntimeKind } from '../runtime/runtime';
import { withTransaction } from '../store/database';
import {
  type CursorMove,
  insertJudgedSlots,
  loadSlotEvidence,
  lockDueCursors,
  lockJudging,
  moveCursors,
  type SlotCursor,
  startMissingCursors,
} from '../store/slots';
import type { JudgedSlotOfJob, SlotsJudgedHook } from '../store/transactionHooks';
import { newPassCache, type PassCache, planCursor } from './slotPlan';

export interface SlotJudgeOptions {
  pool: Pool;
  clock: Clock;
  logger: Logger;
  defaultTimeZone: string;
  /** Which runtime fires runs: it says why a slot nothing ran for was missed. */
  runtime: RuntimeKind;
  onJudged?: SlotsJudgedHook;
  /** Jobs judged in one transaction. */
  batchSize?: number;
  /** Slots of one job judged in one pass; the rest (a long downtime) in the next ones. */
  maxSlotsPerJob?: number;
  /**
   * How long the judge rests after each batch of a pass that has more to do, as a multiple of the
   * time the batch took: 1 leaves the process and the database half of the pass's time for the
   * work that cannot wait (recording runs, answering requests). 0: no rest.
   */
  restRatio?: number;
  /** How the judge rests between batches (tests count the rests instead of waiting them out). */
  rest?: (ms: number) => Promise<void>;
}

const DEFAULT_BATCH_SIZE = 500;
const DEFAULT_MAX_SLOTS_PER_JOB = 1000;
/** Batches of one pass at most: the rest waits for the next pass rather than hold the judge's lock on. */
const MAX_BATCHES_PER_PASS = 20;
/** A cursor whose schedule cannot be read is looked at again after this long. */
const UNREADABLE_RETRY_MS = 60 * 60_000;
/**
 * Slots have a grace of a minute by default and a judgement is asked within it plus 10 s: a pass
 * over 5,000 jobs takes about a second, so resting as long again costs nothing a user sees, and
 * leaves the recordings that arrive meanwhile half of the pass (docs/slots.md, BENCHMARKS.md).
 */
const DEFAULT_REST_RATIO = 1;

/**
 * Judges slots (docs/slots.md): one process at a time (the local leader, or the replica holding
 * the judge's lock), in batches of jobs, each batch in one transaction that reads the evidence of
 * all its slots in a few statements, writes each slot once and moves the cursors. A process that
 * dies mid-batch leaves the batch undone, for the next judge to do whole: no slot is judged twice
 * or left unjudged.
 */
export class SlotJudge {
  /** The first slot of each job that the runtime is about to run (catch-up): judged after it ran. */
  private deferral: (jobId: number) => Date | null = () => null;

  constructor(private readonly options: SlotJudgeOptions) {}

  /** Tells the judge which slots a runtime is about to run, so that it waits for them. */
  deferTo(deferral: (jobId: number) => Date | null): void {
    this.deferral = deferral;
  }

  /** Judges every slot whose grace has passed at `now`; resolves to how many it judged. */
  async judge(now: Date = this.options.clock.now()): Promise<number> {
    await startMissingCursors(this.options.pool);
    let judged = 0;
    const cache = newPassCache();
    const restRatio = this.options.restRatio ?? DEFAULT_REST_RATIO;
    const rest = this.options.rest ?? ((ms: number) => sleep(ms));
    for (let batch = 0; batch < MAX_BATCHES_PER_PASS; batch++) {
      const startedAt = performance.now();
      const { due, slots } = await this.judgeBatch(now, cache);
      judged += slots;
      if (due < (this.options.batchSize ?? DEFAULT_BATCH_SIZE)) break;
      if (restRatio > 0) await rest((performance.now() - startedAt) * restRatio);
    }
    return judged;
  }

  private async judgeBatch(now: Date, cache: PassCache): Promise<{ due: number; slots: number }> {
    const afterCommit: (() => void)[] = [];
    const result = await withTransaction(this.options.pool, async (tx) => {
      await lockJudging(tx);
      // The batch's jobs' evidence locks: recordings of these jobs wait until the batch commits,
      // those of every other job go on (store/slots.ts says why neither side can deadlock).
      const { cursors, due } = await lockDueCursors(tx, now, this.options.batchSize ?? DEFAULT_BATCH_SIZE);
      const planned = cursors.map((cursor) => ({
        cursor,
        plan: planCursor(
          cursor,
          now,
          this.options.defaultTimeZone,
          this.deferral(cursor.jobId),
          this.options.maxSlotsPerJob ?? DEFAULT_MAX_SLOTS_PER_JOB,
          cache,
        ),
      }));
      const evidence = await loadSlotEvidence(
        tx,
        planned.flatMap(({ cursor, plan }) =>
          plan && plan.slots.length > 0
            ? [{ jobId: cursor.jobId, after: cursor.judgedUntil, until: plan.slots[plan.slots.length - 1]! }]
            : [],
        ),
      );
      const judgements: JudgedSlotOfJob[] = [];
      const moves: CursorMove[] = [];
      for (const { cursor, plan } of planned) {
        if (!plan) {
          this.options.logger.warn('a job’s schedule cannot be read; its slots are not judged', {
            jobId: cursor.jobId,
            schedule: cursor.schedule,
          });
          moves.push({ ...unmoved(cursor), dueAt: new Date(now.getTime() + UNREADABLE_RETRY_MS) });
          continue;
        }
        const missedReason = this.missedReason(cursor);
        const ofJob = plan.slots.map((slot): JudgedSlotOfJob => {
          const at = slot.getTime();
          const judgement = judgeSlot(
            slot,
            {
              runs: evidence.runs.get(cursor.jobId)?.get(at) ?? [],
              skippedIds: evidence.skipped.get(cursor.jobId)?.get(at) ?? [],
              claim: evidence.claims.get(cursor.jobId)?.get(at) ?? null,
              holds: evidence.holds.get(cursor.jobId) ?? [],
            },
            cursor.lateAfterSeconds * 1000,
            missedReason,
          );
          return { ...judgement, jobId: cursor.jobId, jobName: cursor.jobName, scheduledAt: slot };
        });
        judgements.push(...ofJob);
        const last = ofJob[ofJob.length - 1];
        // Nothing to judge and nothing new to note (a job waiting for its catch-up): no write.
        if (!last && plan.dueAt?.getTime() === cursor.dueAt?.getTime()) continue;
        moves.push({
          jobId: cursor.jobId,
          judgedUntil: plan.judgedUntil,
          dueAt: plan.dueAt,
          earlierSchedules: plan.earlierSchedules,
          lastSlot: last ? { scheduledAt: last.scheduledAt, outcome: last.outcome } : null,
        });
      }
      const written = await insertJudgedSlots(tx, judgements, now);
      await moveCursors(tx, moves);
      if (written.length > 0 && this.options.onJudged) {
        const byKey = new Map(
          judgements.map((each) => [`${each.jobId}:${each.scheduledAt.getTime()}`, each]),
        );
        const then = await this.options.onJudged(
          tx,
          written.map((each) => byKey.get(`${each.jobId}:${each.scheduledAt.getTime()}`)!),
        );
        if (then) afterCommit.push(then);
      }
      return { due, slots: written.length };
    });
    for (const then of afterCommit) then();
    return result;
  }

  /** Why nothing ran for a slot, in the words of the runtime that should have run it. */
  private missedReason(cursor: SlotCursor): string {
    if (this.options.runtime === 'kubernetes') {
      return 'the cluster created no Job for it (the CronJob controller was down or late, or its starting deadline passed)';
    }
    const why = 'nothing started it: the service was not running, or no process was leading it, at that time';
    return cursor.catchUp ? why : `${why} (the job's catchUp policy is none, so it was not run later)`;
  }
}

function unmoved(cursor: SlotCursor): CursorMove {
  return {
    jobId: cursor.jobId,
    judgedUntil: cursor.judgedUntil,
    dueAt: cursor.dueAt,
    earlierSchedules: cursor.earlierSchedules,
    lastSlot: null,
  };
}
