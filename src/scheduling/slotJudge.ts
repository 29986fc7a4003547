import { setTimeout as sleep } from 'node:timers/promises';
import type { Pool } from 'pg';
import type { Clock } from '../domain/clock';
import { judgeSlot, type SlotEvidence } from '../domain/slotRules';
import type { Logger } from '../logging/logger';
import type { RuntimeKind } from '../runtime/runtime';
import { type Queryable, withTransaction } from '../store/database';
import {
  type CursorMove,
  insertJudgedSlots,
  loadSlotEvidence,
  lockDueCursors,
  lockJudging,
  moveCursors,
  type RangeEvidence,
  type SlotCursor,
  startMissingCursors,
} from '../store/slots';
import { firstEvidenceTimes, insertJudgedStretches, type JudgedStretch } from '../store/slotStretches';
import type { JudgedSlotOfJob, SlotsJudgedHook } from '../store/transactionHooks';
import {
  type CursorPlan,
  mayHoldLongGap,
  newPassCache,
  type PassCache,
  planCursor,
  planStretch,
  scheduleAt,
  type StretchPlan,
} from './slotPlan';
import { mergeIntoStretches } from './slotStretchMerge';
import { WATCHED_MISSED_REASON, watchedJobIdsAmong } from '../store/watchedCronJobJobs';

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
  /**
   * Slots of one job judged one by one in one batch; the rest in the next ones. A job with more
   * than this many due (a long gap) has the stretch before its first evidence judged as one.
   */
  maxSlotsPerJob?: number;
  /**
   * Work of one batch at most, in slots judged one by one (a stretch counts as `STRETCH_COST`):
   * what one transaction holds in memory and writes, however far behind the cursors are.
   */
  slotsPerBatch?: number;
  /**
   * How long the judge rests after each batch of a pass that has more to do, as a multiple of the
   * time the batch took: 1 leaves the process and the database half of the pass's time for the
   * work that cannot wait (recording runs, answering requests). 0: no rest.
   */
  restRatio?: number;
  /** How the judge rests between batches (tests count the rests instead of waiting them out). */
  rest?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Gives the event loop a turn while a batch is planned (tests count the turns). */
  yieldTurn?: () => Promise<void>;
}

const DEFAULT_BATCH_SIZE = 500;
const DEFAULT_MAX_SLOTS_PER_JOB = 1000;
/**
 * A batch of 500 jobs firing every minute judges 500 slots; one that catches up judges at most
 * this many (a few hundred milliseconds of work and a statement of some hundreds of kilobytes).
 */
const DEFAULT_SLOTS_PER_BATCH = 2500;
/** What a stretch costs a batch, in slots: counting its slots reads its days, some per week. */
const STRETCH_COST = 20;
/**
 * Slots of a long gap judged one by one from evidence found at its start (the rest as a stretch
 * in the next batch): where evidence is everywhere (a restored history of runs), a job still moves
 * this far a batch; where it is sparse, its slots alike are merged into stretches all the same.
 */
const LONG_GAP_WALK = 100;
/**
 * Planning a batch gives the event loop a turn at least this often: requests, timers and the
 * recordings of runs go on while the judge works (on the embedded database every statement runs
 * on this thread too).
 */
const YIELD_AFTER_MS = 10;
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
  /** Aborted by `stop`: passes under way end after their batch, and later ones judge nothing. */
  private readonly stopping = new AbortController();

  constructor(private readonly options: SlotJudgeOptions) {}

  /** Tells the judge which slots a runtime is about to run, so that it waits for them. */
  deferTo(deferral: (jobId: number) => Date | null): void {
    this.deferral = deferral;
  }

  /**
   * Ends the passes under way after the batch each is in (and the rest between two batches at
   * once), and judges nothing from then on: a service stopping waits for one batch at most, not a
   * pass, whoever started it (the local leader, the judge loop of a cluster's replicas).
   */
  stop(): void {
    this.stopping.abort();
  }

  /**
   * Judges every slot whose grace has passed at `now`; resolves to how many it judged. An aborted
   * `signal` ends the pass after the batch under way, and its rest at once, as `stop` does.
   */
  async judge(now: Date = this.options.clock.now(), signal?: AbortSignal): Promise<number> {
    signal = signal ? AbortSignal.any([signal, this.stopping.signal]) : this.stopping.signal;
    if (signal.aborted) return 0;
    await startMissingCursors(this.options.pool);
    let judged = 0;
    const cache = newPassCache();
    const restRatio = this.options.restRatio ?? DEFAULT_REST_RATIO;
    const rest = this.options.rest ?? restFor;
    for (let batch = 0; batch < MAX_BATCHES_PER_PASS && !signal.aborted; batch++) {
      const startedAt = performance.now();
      const { more, slots } = await this.judgeBatch(now, cache);
      judged += slots;
      if (!more || signal.aborted) break;
      if (restRatio > 0) await rest((performance.now() - startedAt) * restRatio, signal);
    }
    return judged;
  }

  private async judgeBatch(now: Date, cache: PassCache): Promise<{ more: boolean; slots: number }> {
    const afterCommit: (() => void)[] = [];
    const result = await withTransaction(this.options.pool, async (tx) => {
      await lockJudging(tx);
      // The batch's jobs' evidence locks: recordings of these jobs wait until the batch commits,
      // those of every other job go on (store/slots.ts says why neither side can deadlock).
      const batchSize = this.options.batchSize ?? DEFAULT_BATCH_SIZE;
      const { cursors, due } = await lockDueCursors(tx, now, batchSize);
      const { planned, stretched, more } = await this.planBatch(tx, cursors, now, cache, due >= batchSize);
      const evidence = await loadSlotEvidence(tx, [
        ...planned.flatMap(({ cursor, plan }) =>
          plan && plan.slots.length > 0
            ? [{ jobId: cursor.jobId, after: cursor.judgedUntil, until: plan.slots[plan.slots.length - 1]! }]
            : [],
        ),
        ...stretched.map(({ cursor, stretch }) => ({
          jobId: cursor.jobId,
          after: cursor.judgedUntil,
          until: stretch.judgedUntil,
        })),
      ]);
      const watched = await watchedJobIdsAmong(tx, [
        ...planned.map(({ cursor }) => cursor.jobId),
        ...stretched.map(({ cursor }) => cursor.jobId),
      ]);
      const judgements: JudgedSlotOfJob[] = [];
      const stretches: JudgedStretch[] = [];
      const moves: CursorMove[] = [];
      for (const { cursor, plan, merge } of planned) {
        if (!plan) {
          this.options.logger.warn('a job’s schedule cannot be read; its slots are not judged', {
            jobId: cursor.jobId,
            schedule: cursor.schedule,
          });
          moves.push({ ...unmoved(cursor), dueAt: new Date(now.getTime() + UNREADABLE_RETRY_MS) });
          continue;
        }
        const isWatched = watched.has(cursor.jobId);
        const missedReason = isWatched ? WATCHED_MISSED_REASON : this.missedReason(cursor);
        const ofJob = plan.slots.map((slot): JudgedSlotOfJob => {
          const at = slot.getTime();
          const judgement = judgeSlot(
            slot,
            evidenceOf(evidence, cursor.jobId, at),
            cursor.lateAfterSeconds * 1000,
            missedReason,
            isWatched,
          );
          return { ...judgement, jobId: cursor.jobId, jobName: cursor.jobName, scheduledAt: slot };
        });
        if (merge) {
          // A long gap judged one by one past its evidence: its runs of slots alike are stretches.
          const split = mergeIntoStretches(ofJob, (slot) =>
            scheduleAt(cursor, slot, this.options.defaultTimeZone, cache),
          );
          judgements.push(...split.slots);
          stretches.push(...split.stretches);
        } else {
          judgements.push(...ofJob);
        }
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
      for (const { cursor, stretch } of stretched) {
        // Nothing is known of the job between its cursor and its first evidence: the first slot's
        // judgement is every slot's (holds and attempts begin and end only at evidence).
        const judgement = judgeSlot(
          stretch.first,
          evidenceOf(evidence, cursor.jobId, NaN),
          cursor.lateAfterSeconds * 1000,
          watched.has(cursor.jobId) ? WATCHED_MISSED_REASON : this.missedReason(cursor),
          watched.has(cursor.jobId),
        );
        stretches.push({
          jobId: cursor.jobId,
          ...stretch,
          outcome: judgement.outcome,
          reason: judgement.reason,
        });
        moves.push({
          jobId: cursor.jobId,
          judgedUntil: stretch.judgedUntil,
          dueAt: stretch.dueAt,
          earlierSchedules: stretch.earlierSchedules,
          lastSlot: { scheduledAt: stretch.last, outcome: judgement.outcome },
        });
      }
      const written = await insertJudgedSlots(tx, judgements, now);
      const writtenStretches = await insertJudgedStretches(tx, stretches, now);
      await moveCursors(tx, moves);
      if ((written.length > 0 || writtenStretches.length > 0) && this.options.onJudged) {
        const byKey = new Map(
          judgements.map((each) => [`${each.jobId}:${each.scheduledAt.getTime()}`, each]),
        );
        const names = new Map([...planned, ...stretched].map(({ cursor }) => [cursor.jobId, cursor.jobName]));
        const then = await this.options.onJudged(tx, [
          ...written.map((each) => byKey.get(`${each.jobId}:${each.scheduledAt.getTime()}`)!),
          ...writtenStretches.map((each) => stretchAsSlot(each, names.get(each.jobId)!)),
        ]);
        if (then) afterCommit.push(then);
      }
      const stretchSlots = writtenStretches.reduce((sum, each) => sum + each.count, 0);
      return { more, slots: written.length + stretchSlots };
    });
    for (const then of afterCommit) then();
    return result;
  }

  /**
   * Plans the batch's cursors in their order, within the batch's work (`slotsPerBatch`): those due
   * a few slots, one by one; those whose gap may hold more than `maxSlotsPerJob`, as a stretch up
   * to their first evidence (one statement for all of them), or one by one where that evidence
   * comes at once. Cursors beyond the batch's work are left as they are, for the next batch
   * (`more`), as is the rest of a cursor that had more due than it was given.
   */
  private async planBatch(
    tx: Queryable,
    cursors: SlotCursor[],
    now: Date,
    cache: PassCache,
    moreDue: boolean,
  ): Promise<{
    planned: PlannedCursor[];
    stretched: { cursor: SlotCursor; stretch: StretchPlan }[];
    more: boolean;
  }> {
    const maxSlotsPerJob = this.options.maxSlotsPerJob ?? DEFAULT_MAX_SLOTS_PER_JOB;
    const yieldTurn = this.options.yieldTurn ?? nextTurn;
    let budget = this.options.slotsPerBatch ?? DEFAULT_SLOTS_PER_BATCH;
    let more = moreDue;
    let turnStarted = performance.now();
    const planned: PlannedCursor[] = [];
    const stretched: { cursor: SlotCursor; stretch: StretchPlan }[] = [];
    const long: SlotCursor[] = [];
    const giveTurn = async () => {
      if (performance.now() - turnStarted < YIELD_AFTER_MS) return;
      await yieldTurn();
      turnStarted = performance.now();
    };
    const planOneByOne = (cursor: SlotCursor, maxSlots: number, merge: boolean) => {
      const plan = planCursor(
        cursor,
        now,
        this.options.defaultTimeZone,
        this.deferral(cursor.jobId),
        Math.min(maxSlots, budget),
        cache,
      );
      budget -= Math.max(1, plan?.slots.length ?? 0);
      // Given fewer than were due: the rest is due at once, for the next batch.
      if (plan && plan.slots.length > 0 && plan.dueAt && plan.dueAt.getTime() <= now.getTime()) more = true;
      planned.push({ cursor, plan, merge });
    };
    for (const cursor of cursors) {
      if (budget <= 0) {
        more = true;
        break;
      }
      if (mayHoldLongGap(cursor, now, this.deferral(cursor.jobId), maxSlotsPerJob)) {
        long.push(cursor);
        budget -= STRETCH_COST;
        continue;
      }
      planOneByOne(cursor, maxSlotsPerJob, false);
      await giveTurn();
    }
    if (long.length === 0) return { planned, stretched, more };
    const evidenceAt = await firstEvidenceTimes(
      tx,
      long.map((cursor) => ({ jobId: cursor.jobId, after: cursor.judgedUntil, until: now })),
    );
    for (const cursor of long) {
      const stretch = planStretch(
        cursor,
        now,
        this.options.defaultTimeZone,
        this.deferral(cursor.jobId),
        evidenceAt.get(cursor.jobId) ?? null,
        cache,
      );
      if (stretch) {
        stretched.push({ cursor, stretch });
        if (stretch.dueAt && stretch.dueAt.getTime() <= now.getTime()) more = true;
      } else if (budget > 0) {
        // Evidence at once: its slots one by one, a few, then a stretch again in the next batch.
        planOneByOne(cursor, Math.min(LONG_GAP_WALK, maxSlotsPerJob), true);
      } else {
        more = true;
      }
      await giveTurn();
    }
    return { planned, stretched, more };
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

/** The evidence of one slot (`at`, ms) of a job; NaN: only what is not about one slot (holds, attempts). */
function evidenceOf(evidence: RangeEvidence, jobId: number, at: number): SlotEvidence {
  return {
    runs: evidence.runs.get(jobId)?.get(at) ?? [],
    skippedIds: evidence.skipped.get(jobId)?.get(at) ?? [],
    claim: evidence.claims.get(jobId)?.get(at) ?? null,
    holds: evidence.holds.get(jobId) ?? [],
    activeRuns: evidence.active.get(jobId) ?? [],
  };
}

/**
 * A stretch as those told of judged slots see it (alerts): its first slot, the stretch named, and
 * its reason saying that it stands for all of them, so that one alert is sent for the stretch.
 */
function stretchAsSlot(stretch: JudgedStretch, jobName: string): JudgedSlotOfJob {
  const last = stretch.last.toISOString();
  return {
    jobId: stretch.jobId,
    jobName,
    scheduledAt: stretch.first,
    outcome: stretch.outcome,
    executionIds: [],
    startedAt: null,
    delayMs: null,
    reason: `${stretch.reason ?? stretch.outcome} (as were the ${stretch.count - 1} slots after it, up to ${last}: one alert for all)`,
    stretch: { lastScheduledAt: stretch.last, slotCount: stretch.count },
  };
}

function restFor(ms: number, signal?: AbortSignal): Promise<void> {
  return sleep(ms, undefined, { signal }).catch(() => undefined);
}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** A cursor whose slots a batch judges one by one; `merge`: in a long gap (runs of them alike are stretches). */
interface PlannedCursor {
  cursor: SlotCursor;
  plan: CursorPlan | null;
  merge: boolean;
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
