/**
 * Writes submissions in batches, one batch at a time: a submission made while nothing is being
 * written is written at once, alone; those made while a batch is being written wait and go
 * together into the next one. Under load many submissions then share one transaction (its round
 * trips, its commit, its statement-level triggers), and with nothing else going on none waits.
 *
 * The next batch is taken once the event loop has run the rest of the turn in which the batch
 * before it ended (`setImmediate`): the callers that batch answered, and the requests whose bytes
 * arrived with its commit, submit again within that turn and join it rather than the batch after.
 * Taken at once, the next batch held about half the submissions in flight and the one after it the
 * other half: with 16 pod reports in flight, 2,900 to 3,200 recordings a second against 4,100 to
 * 4,600 with the wait, which costs one turn of the loop (docs/benchmarks/where-the-time-goes.md).
 *
 * Callers that come back over the network (HTTP clients creating jobs) cannot submit again within
 * that turn: for them the wait only delays the next batch by the time it takes to answer the last.
 * With `nextBatch: 'beforeAnswers'`, a batch that ends while submissions wait sends the next one
 * first and answers its own callers in the turn after, while the next statement runs.
 *
 * One batch at a time also means that this process's recording transactions never wait on each
 * other's row locks (the jobs' last runs, the counters), so they cannot deadlock among themselves.
 */
export class GroupCommit<Item, Result> {
  private pending: Submission<Item, Result>[] = [];
  private writing = false;
  private readonly maxBatch: number;
  private readonly nextBatch: NextBatch;

  /**
   * @param writeBatch writes the items, answering one outcome per item in their order: a batch
   *   whose items can fail one by one answers each failure as its item's rejection.
   */
  constructor(
    private readonly writeBatch: (items: Item[]) => Promise<PromiseSettledResult<Result>[]>,
    options: GroupCommitOptions = {},
  ) {
    this.maxBatch = options.maxBatch ?? 256;
    this.nextBatch = options.nextBatch ?? 'afterResubmissions';
  }

  submit(item: Item): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (!this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    try {
      while (this.pending.length > 0) {
        const batch = this.pending.splice(0, this.maxBatch);
        let outcomes: PromiseSettledResult<Result>[];
        try {
          outcomes = await this.writeBatch(batch.map((submission) => submission.item));
        } catch (error) {
          outcomes = batch.map(() => ({ status: 'rejected', reason: error }));
        }
        if (this.nextBatch === 'beforeAnswers' && this.pending.length > 0) {
          setImmediate(() => answer(batch, outcomes));
        } else {
          answer(batch, outcomes);
          await afterThisTurn();
        }
      }
    } finally {
      this.writing = false;
    }
  }
}

/**
 * Writes each item alone, one after another, answering each one's outcome: what a batch falls back
 * to when the database refused it whole, so that only the item at fault fails.
 */
export async function eachAlone<Item, Result>(
  items: readonly Item[],
  write: (item: Item) => Promise<Result>,
): Promise<PromiseSettledResult<Result>[]> {
  const outcomes: PromiseSettledResult<Result>[] = [];
  for (const item of items) {
    try {
      outcomes.push({ status: 'fulfilled', value: await write(item) });
    } catch (reason) {
      outcomes.push({ status: 'rejected', reason });
    }
  }
  return outcomes;
}

/**
 * When the next batch is taken: once the callers just answered could submit again within the turn
 * (the default: in-process callers, the recordings), or at once, before they are answered (callers
 * that come back over the network).
 */
type NextBatch = 'afterResubmissions' | 'beforeAnswers';

export interface GroupCommitOptions {
  /** Most submissions in one batch (default 256). */
  maxBatch?: number;
  nextBatch?: NextBatch;
}

function answer<Item, Result>(
  batch: Submission<Item, Result>[],
  outcomes: PromiseSettledResult<Result>[],
): void {
  batch.forEach((submission, i) => {
    const outcome = outcomes[i];
    if (outcome?.status === 'fulfilled') submission.resolve(outcome.value);
    else submission.reject(outcome ? outcome.reason : new Error('the batch answered no outcome'));
  });
}

/** Resolves once the event loop has run the I/O callbacks and microtasks of its current turn. */
function afterThisTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

interface Submission<Item, Result> {
  item: Item;
  resolve: (result: Result) => void;
  reject: (reason: unknown) => void;
}
