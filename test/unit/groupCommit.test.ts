import { GroupCommit } from '../../src/scheduling/groupCommit';

/** A writer whose batches the test lets finish one at a time. */
function heldWriter() {
  const batches: number[][] = [];
  const releases: (() => void)[] = [];
  const write = async (items: number[]): Promise<PromiseSettledResult<string>[]> => {
    batches.push(items);
    await new Promise<void>((resolve) => releases.push(resolve));
    return items.map((item) =>
      item < 0
        ? { status: 'rejected', reason: new Error(`refused ${item}`) }
        : { status: 'fulfilled', value: `wrote ${item}` },
    );
  };
  const releaseNext = async () => {
    while (releases.length === 0) await new Promise((resolve) => setImmediate(resolve));
    releases.shift()!();
  };
  return { batches, write, releaseNext };
}

describe('GroupCommit', () => {
  it('writes a lone submission at once, alone', async () => {
    const writer = heldWriter();
    const commit = new GroupCommit(writer.write);
    const one = commit.submit(1);
    expect(writer.batches).toEqual([[1]]);
    await writer.releaseNext();
    await expect(one).resolves.toBe('wrote 1');
  });

  it('writes what arrives during a write as the next batch, one batch at a time', async () => {
    const writer = heldWriter();
    const commit = new GroupCommit(writer.write);
    const first = commit.submit(1);
    const waiting = [commit.submit(2), commit.submit(3), commit.submit(4)];
    expect(writer.batches).toEqual([[1]]);
    await writer.releaseNext();
    await first;
    // The next batch starts once this turn of the event loop is over.
    await new Promise((resolve) => setImmediate(resolve));
    expect(writer.batches).toEqual([[1], [2, 3, 4]]);
    await writer.releaseNext();
    await expect(Promise.all(waiting)).resolves.toEqual(['wrote 2', 'wrote 3', 'wrote 4']);
  });

  it('takes into the next batch what its callers submit again as they are answered', async () => {
    const writer = heldWriter();
    const commit = new GroupCommit(writer.write);
    // Each caller answered submits again at once, as a pod's next report or a client's next request.
    const again = (item: number) => commit.submit(item).then(() => commit.submit(item + 10));
    const all = [again(1), again(2), again(3)];
    for (let i = 0; i < 3; i++) await writer.releaseNext();
    await Promise.all(all);
    // 11 came as [2, 3] was about to be taken, 12 and 13 as it ended: each joins the batch then taken.
    expect(writer.batches).toEqual([[1], [2, 3, 11], [12, 13]]);
  });

  it('answers each submission with its own outcome', async () => {
    const writer = heldWriter();
    const commit = new GroupCommit(writer.write);
    const first = commit.submit(1);
    const good = commit.submit(2);
    const bad = commit.submit(-2);
    await writer.releaseNext();
    await first;
    await writer.releaseNext();
    await expect(good).resolves.toBe('wrote 2');
    await expect(bad).rejects.toThrow('refused -2');
  });

  it('rejects every submission of a batch whose write throws, and goes on with the next', async () => {
    let calls = 0;
    const commit = new GroupCommit<number, number>(async (items) => {
      calls++;
      if (calls === 1) throw new Error('database unreachable');
      return items.map((value) => ({ status: 'fulfilled', value }));
    });
    const lost = commit.submit(1);
    const next = commit.submit(2);
    await expect(lost).rejects.toThrow('database unreachable');
    await expect(next).resolves.toBe(2);
  });

  it('splits what waits into batches of at most maxBatch', async () => {
    const writer = heldWriter();
    const commit = new GroupCommit(writer.write, { maxBatch: 2 });
    const all = [1, 2, 3, 4, 5].map((n) => commit.submit(n));
    for (let i = 0; i < 3; i++) await writer.releaseNext();
    await Promise.all(all);
    expect(writer.batches).toEqual([[1], [2, 3], [4, 5]]);
  });

  it('with nextBatch beforeAnswers, sends the next batch before it answers the one that ended', async () => {
    const writer = heldWriter();
    const commit = new GroupCommit(writer.write, { nextBatch: 'beforeAnswers' });
    const batchesWhenAnswered: number[][][] = [];
    const first = commit.submit(1).then(() => batchesWhenAnswered.push(structuredClone(writer.batches)));
    const waiting = [commit.submit(2), commit.submit(3)];
    await writer.releaseNext();
    await first;
    // Its caller was answered with [2, 3] already written, not after.
    expect(batchesWhenAnswered).toEqual([[[1], [2, 3]]]);
    await writer.releaseNext();
    await expect(Promise.all(waiting)).resolves.toEqual(['wrote 2', 'wrote 3']);
  });
});
