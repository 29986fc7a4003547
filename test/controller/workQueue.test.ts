import { WorkQueue } from '../../src/controller/runtime/workQueue';

describe('WorkQueue', () => {
  afterEach(() => jest.useRealTimers());

  it('holds a key once however often it is added, in the order first added', async () => {
    const queue = new WorkQueue();
    for (const key of ['a', 'b', 'a', 'c', 'b']) queue.add(key);
    expect(queue.length).toBe(3);
    expect([await queue.get(), await queue.get(), await queue.get()]).toEqual(['a', 'b', 'c']);
  });

  it('never hands a key to two workers: added while processed, it comes back after done', async () => {
    const queue = new WorkQueue();
    queue.add('a');
    const first = await queue.get();
    queue.add('a');
    expect(queue.length).toBe(0);
    let second: string | null | undefined;
    void queue.get().then((key) => (second = key));
    await Promise.resolve();
    expect(second).toBeUndefined();
    queue.done(first!);
    await Promise.resolve();
    expect(second).toBe('a');
  });

  it('gives a waiting worker a key as soon as one is added', async () => {
    const queue = new WorkQueue();
    const next = queue.get();
    queue.add('x');
    expect(await next).toBe('x');
    queue.add('x');
    expect(queue.length).toBe(0); // being processed: marked dirty, not queued twice
  });

  it('backs off a failing key exponentially, up to the cap, and forget resets it', () => {
    jest.useFakeTimers();
    const queue = new WorkQueue({ baseDelayMs: 100, maxDelayMs: 1000 });
    expect([1, 2, 3, 4, 5, 6].map(() => queue.addRateLimited('bad'))).toEqual([
      100, 200, 400, 800, 1000, 1000,
    ]);
    expect(queue.addRateLimited('other')).toBe(100);
    queue.forget('bad');
    expect(queue.addRateLimited('bad')).toBe(100);
  });

  it('queues a delayed key when its time comes, once even when asked twice', async () => {
    jest.useFakeTimers();
    const queue = new WorkQueue();
    queue.addAfter('later', 1000);
    queue.addAfter('later', 1000);
    jest.advanceTimersByTime(999);
    expect(queue.length).toBe(0);
    jest.advanceTimersByTime(1);
    expect(queue.length).toBe(1);
    jest.advanceTimersByTime(5000);
    expect(queue.length).toBe(1);
  });

  it('wakes waiting workers with null on shutdown and drops delayed keys', async () => {
    const queue = new WorkQueue();
    const waiting = queue.get();
    queue.addAfter('never', 50);
    queue.shutDown();
    expect(await waiting).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(queue.length).toBe(0);
    expect(await queue.get()).toBeNull();
  });
});
