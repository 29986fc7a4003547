import type { V1Lease } from '@kubernetes/client-node';
import { LeaderElector } from '../../src/controller/runtime/leaderElection';
import { createMemoryLogger } from '../support/memoryLogger';

/**
 * A Lease store that behaves as the API server does for these three calls (transcript 10-lease):
 * 404 when missing, 409 on a create that exists or a replace with a stale resourceVersion.
 */
function leaseStore() {
  let stored: V1Lease | null = null;
  let rv = 0;
  const copy = (lease: V1Lease) => JSON.parse(JSON.stringify(lease)) as V1Lease;
  const fail = (code: number) => Object.assign(new Error(`HTTP ${code}`), { code });
  return {
    get current() {
      return stored;
    },
    api: {
      readNamespacedLease: async () => {
        if (!stored) throw fail(404);
        return copy(stored);
      },
      createNamespacedLease: async ({ body }: { body: V1Lease }) => {
        if (stored) throw fail(409);
        stored = copy({ ...body, metadata: { ...body.metadata, resourceVersion: String(++rv) } });
        return copy(stored);
      },
      replaceNamespacedLease: async ({ body }: { body: V1Lease }) => {
        if (!stored) throw fail(404);
        if (body.metadata?.resourceVersion !== stored.metadata?.resourceVersion) throw fail(409);
        stored = copy({ ...body, metadata: { ...body.metadata, resourceVersion: String(++rv) } });
        return copy(stored);
      },
    },
  };
}

function elector(store: ReturnType<typeof leaseStore>, identity: string, clock: { now: number }) {
  const events: string[] = [];
  const e = new LeaderElector(
    {
      leases: store.api as never,
      namespace: 'crondeck',
      name: 'crondeck-controller',
      identity,
      logger: createMemoryLogger(),
      leaseDurationMs: 15_000,
      now: () => clock.now,
    },
    { onStartedLeading: () => events.push('started'), onStoppedLeading: () => events.push('stopped') },
  );
  return { e, events };
}

describe('LeaderElector', () => {
  it('creates the lease when there is none, with six-digit MicroTimes, and renews it', async () => {
    const store = leaseStore();
    const clock = { now: Date.parse('2026-11-23T10:00:00.000Z') };
    const { e } = elector(store, 'pod-a', clock);
    expect(await e.tryAcquireOrRenew()).toBe(true);
    const created = JSON.parse(JSON.stringify(store.current));
    expect(created.spec).toMatchObject({
      holderIdentity: 'pod-a',
      leaseDurationSeconds: 15,
      acquireTime: '2026-11-23T10:00:00.000000Z',
      renewTime: '2026-11-23T10:00:00.000000Z',
      leaseTransitions: 0,
    });
    clock.now += 2000;
    expect(await e.tryAcquireOrRenew()).toBe(true);
    const renewed = JSON.parse(JSON.stringify(store.current));
    expect(renewed.spec.renewTime).toBe('2026-11-23T10:00:02.000000Z');
    expect(renewed.spec.acquireTime).toBe('2026-11-23T10:00:00.000000Z');
  });

  it('lets another replica take over only after the record stayed unchanged for a lease duration', async () => {
    const store = leaseStore();
    const clock = { now: 1_000_000 };
    const a = elector(store, 'pod-a', clock).e;
    const b = elector(store, 'pod-b', clock).e;
    expect(await a.tryAcquireOrRenew()).toBe(true);
    expect(await b.tryAcquireOrRenew()).toBe(false);
    // The leader keeps renewing: the follower keeps waiting however long it watches.
    for (let i = 0; i < 10; i++) {
      clock.now += 5_000;
      expect(await a.tryAcquireOrRenew()).toBe(true);
      expect(await b.tryAcquireOrRenew()).toBe(false);
    }
    // The leader dies: 14.999 s of an unchanged record is not enough, 15 s is.
    clock.now += 14_999;
    expect(await b.tryAcquireOrRenew()).toBe(false);
    clock.now += 1;
    expect(await b.tryAcquireOrRenew()).toBe(true);
    expect(store.current?.spec).toMatchObject({ holderIdentity: 'pod-b', leaseTransitions: 1 });
  });

  it('lets exactly one of two racing replicas win a write (409 for the other)', async () => {
    const store = leaseStore();
    const clock = { now: 0 };
    const results = await Promise.allSettled([
      elector(store, 'pod-a', clock).e.tryAcquireOrRenew(),
      elector(store, 'pod-b', clock).e.tryAcquireOrRenew(),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled' && r.value)).toHaveLength(1);
    expect(results.filter((r) => r.status === 'rejected')).toHaveLength(1);
  });

  it('releases the lease on stop, so a follower takes over without waiting', async () => {
    const store = leaseStore();
    const clock = { now: 0 };
    const a = elector(store, 'pod-a', clock);
    const b = elector(store, 'pod-b', clock);
    a.e.start();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(a.e.isLeader).toBe(true);
    expect(a.events).toEqual(['started']);
    await a.e.stop();
    expect(a.events).toEqual(['started', 'stopped']);
    expect(store.current?.spec?.holderIdentity).toBeUndefined();
    expect(await b.e.tryAcquireOrRenew()).toBe(true);
  });
});
