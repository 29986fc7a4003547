import { ReviewCache } from '../../src/auth/reviewCache';

/** The answers of the cluster's reviews, kept briefly (SERVICE_AUTH_CACHE_SECONDS). */
describe('ReviewCache', () => {
  let now = 0;
  const cache = (ttlMs = 10_000, maxEntries = 100) =>
    new ReviewCache<string>({ ttlMs, maxEntries, now: () => now });
  const counting = () => {
    const asked: string[] = [];
    return { asked, review: (answer: string) => () => (asked.push(answer), Promise.resolve(answer)) };
  };

  beforeEach(() => (now = 0));

  it('answers from what it kept until the TTL has passed, then asks again', async () => {
    const kept = cache();
    const { asked, review } = counting();
    expect(await kept.get('k', review('first'))).toBe('first');
    now = 9_999;
    expect(await kept.get('k', review('second'))).toBe('first');
    now = 10_000;
    expect(await kept.get('k', review('third'))).toBe('third');
    expect(asked).toEqual(['first', 'third']);
  });

  it('keeps nothing with a TTL of 0', async () => {
    const kept = cache(0);
    const { asked, review } = counting();
    await kept.get('k', review('a'));
    await kept.get('k', review('b'));
    expect(asked).toEqual(['a', 'b']);
  });

  it('is bounded: past its size, the answer used longest ago goes', async () => {
    const kept = cache(10_000, 2);
    const { asked, review } = counting();
    await kept.get('a', review('a1'));
    await kept.get('b', review('b1'));
    await kept.get('a', review('a2')); // used: b is now the oldest
    await kept.get('c', review('c1'));
    await kept.get('a', review('a3'));
    await kept.get('b', review('b2'));
    expect(asked).toEqual(['a1', 'b1', 'c1', 'b2']);
  });

  it('shares one review among the requests that ask while it is in flight', async () => {
    const kept = cache();
    let release!: (value: string) => void;
    let reviews = 0;
    const slow = () => {
      reviews += 1;
      return new Promise<string>((resolve) => (release = resolve));
    };
    const answers = Promise.all([kept.get('k', slow), kept.get('k', slow), kept.get('k', slow)]);
    release('shared');
    expect(await answers).toEqual(['shared', 'shared', 'shared']);
    expect(reviews).toBe(1);
  });

  it('never keeps a failure: the next request asks again', async () => {
    const kept = cache();
    await expect(kept.get('k', () => Promise.reject(new Error('API server down')))).rejects.toThrow('down');
    expect(await kept.get('k', () => Promise.resolve('answered'))).toBe('answered');
  });
});
