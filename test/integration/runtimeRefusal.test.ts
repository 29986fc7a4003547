import type { Runtime } from '../../src/runtime/runtime';
import { RuntimeRefusedError } from '../../src/runtime/runtimeRefused';
import { startTestService, type TestService } from '../support/service';

/** A runtime that refuses every change while `refusing` is set, as an unreachable cluster would. */
function refusingWhenAsked(state: { refusing: boolean }) {
  return (inner: Runtime): Runtime => {
    const guard =
      <A extends unknown[]>(call: (...args: A) => Promise<void>) =>
      async (...args: A) => {
        if (state.refusing)
          throw new RuntimeRefusedError('the cluster refused the change: connection refused');
        await call(...args);
      };
    return {
      // It may refuse a save, so it is told inside the writing transaction.
      savesInMemory: false,
      start: () => inner.start(),
      stop: () => inner.stop(),
      jobSaved: guard((job) => inner.jobSaved(job)),
      jobDeleted: guard((id) => inner.jobDeleted(id)),
      runNow: guard((job) => inner.runNow(job)),
      suspensionChanged: guard((job) => inner.suspensionChanged(job)),
      backfill: guard((job, backfill) => inner.backfill(job, backfill)),
      schedulerChanged: guard((s) => inner.schedulerChanged(s)),
    };
  };
}

describe('a runtime that refuses a change', () => {
  const state = { refusing: false };
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ wrapRuntime: refusingWhenAsked(state) });
  });
  afterAll(async () => {
    await service.stop();
  });
  afterEach(() => {
    state.refusing = false;
  });

  const refused = { error: 'the cluster refused the change: connection refused' };
  const body = { name: 'kept', schedule: '0 * * * *', command: 'true' };

  it('answers 503 with its reason and leaves the stored jobs as they were', async () => {
    state.refusing = true;
    const create = await service.request('POST', '/api/jobs', body);
    expect([create.status, create.body]).toEqual([503, refused]);
    expect((await service.request('GET', '/api/jobs')).body).toEqual([]);

    state.refusing = false;
    const job = (await service.request('POST', '/api/jobs', body)).body;
    state.refusing = true;
    const replace = await service.request('PUT', `/api/jobs/${job.id}`, { ...body, schedule: '*/5 * * * *' });
    const toggle = await service.request('PATCH', `/api/jobs/${job.id}/toggle`, { enabled: false });
    const remove = await service.request('DELETE', `/api/jobs/${job.id}`);
    const run = await service.request('POST', `/api/jobs/${job.id}/run`);
    expect([replace, toggle, remove, run].map((r) => [r.status, r.body])).toEqual(
      Array(4).fill([503, refused]),
    );
    expect((await service.request('GET', `/api/jobs/${job.id}`)).body).toMatchObject({
      schedule: '0 * * * *',
      enabled: true,
    });
    expect(service.local.nextFireTimes().has(job.id)).toBe(true);
  });

  it('answers 503 to a pause and stays running', async () => {
    state.refusing = true;
    const pause = await service.request('POST', '/api/scheduler/pause');
    expect([pause.status, pause.body]).toEqual([503, refused]);
    expect((await service.request('GET', '/api/scheduler/status')).body).toEqual({
      paused: false,
      until: null,
    });
  });
});
