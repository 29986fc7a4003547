import { reportTokenFor } from '../../src/domain/reportToken';
import { startTestService, type TestService } from '../support/service';

const SECRET = 'a-report-secret-of-at-least-32-characters';

const report = (overrides: Record<string, unknown>) => ({
  podUid: 'b6f1c2e9-0000-4000-8000-000000000001',
  attempt: 0,
  final: true,
  status: 'success',
  exitCode: 0,
  startedAt: '2026-11-23T10:00:01.000Z',
  finishedAt: '2026-11-23T10:00:02.000Z',
  ...overrides,
});

/** A pod's report names its run's slot (scheduledAt, trigger): the execution keeps it. */
describe('reports of runs that name their slot', () => {
  let service: TestService;
  let jobId: number;
  const post = (body: unknown) =>
    service.request('POST', `/api/jobs/${jobId}/reports`, body, {
      authorization: `Bearer ${reportTokenFor(SECRET, jobId)}`,
    });

  beforeAll(async () => {
    service = await startTestService({ env: { SERVICE_REPORT_SECRET: SECRET } });
    jobId = (
      await service.request('POST', '/api/jobs', { name: 'slotted', schedule: '* * * * *', command: 'true' })
    ).body.id;
  });
  afterAll(() => service.stop());

  it('records the slot and why the run ran; a run by hand has none', async () => {
    const scheduled = await post(
      report({ podUid: 'p-1', scheduledAt: '2026-11-23T10:00:00Z', trigger: 'schedule' }),
    );
    const caughtUp = await post(
      report({ podUid: 'p-2', scheduledAt: '2026-11-23T09:59:00Z', trigger: 'catchUp' }),
    );
    const implied = await post(report({ podUid: 'p-3', scheduledAt: '2026-11-23T09:58:00Z' }));
    const byHand = await post(report({ podUid: 'p-4' }));
    const read = async (answer: { body: { id: number } }) =>
      (await service.request('GET', `/api/executions/${answer.body.id}`)).body;
    expect(await read(scheduled)).toMatchObject({
      scheduledAt: '2026-11-23T10:00:00.000Z',
      trigger: 'schedule',
    });
    expect(await read(caughtUp)).toMatchObject({
      scheduledAt: '2026-11-23T09:59:00.000Z',
      trigger: 'catchUp',
    });
    expect(await read(implied)).toMatchObject({
      scheduledAt: '2026-11-23T09:58:00.000Z',
      trigger: 'schedule',
    });
    expect(await read(byHand)).toMatchObject({ scheduledAt: null, trigger: null });
  });

  it('refuses a bad slot or trigger, naming the field', async () => {
    expect(await post(report({ podUid: 'p-5', scheduledAt: 'noon' }))).toMatchObject({
      status: 400,
      body: { error: expect.stringMatching(/^scheduledAt: /) },
    });
    expect(
      await post(report({ podUid: 'p-6', scheduledAt: '2026-11-23T10:00:00Z', trigger: 'manual' })),
    ).toMatchObject({
      status: 400,
      body: { error: expect.stringMatching(/^trigger: must be one of schedule, catchUp, backfill/) },
    });
    expect(await post(report({ podUid: 'p-7', trigger: 'backfill' }))).toMatchObject({
      status: 400,
      body: { error: expect.stringMatching(/^trigger: .*needs scheduledAt/) },
    });
  });
});
