import { reportTokenFor } from '../../src/domain/reportToken';
import { Receiver } from '../alerts/support/receiver';
import { eventually, startTestService, type TestService } from '../support/service';

const SECRET = 'a-report-secret-of-at-least-32-characters';
const API_TOKEN = 'the-api-token-of-this-test';

function report(overrides: Record<string, unknown> = {}) {
  return {
    podUid: '6f1c2e9a-0000-4000-8000-000000000001',
    attempt: 0,
    final: true,
    status: 'failed',
    exitCode: 3,
    startedAt: '2026-11-23T10:00:00.000Z',
    finishedAt: '2026-11-23T10:00:02.500Z',
    stdout: 'partial output\n',
    stderr: 'boom\n',
    ...overrides,
  };
}

async function failedTotal(service: TestService): Promise<number> {
  const metrics = (await service.request('GET', '/metrics')).text;
  return Number(/service_executions_total\{status="failed"\} (\d+)/.exec(metrics)?.[1]);
}

describe('pod reports (POST /api/jobs/:id/reports)', () => {
  let service: TestService;
  let receiver: Receiver;
  let jobId: number;
  let otherJobId: number;
  const auth = { authorization: `Bearer ${API_TOKEN}` };
  const post = (id: number, body: unknown, token: string | null = reportTokenFor(SECRET, id)) =>
    service.request(
      'POST',
      `/api/jobs/${id}/reports`,
      body,
      token ? { authorization: `Bearer ${token}` } : {},
    );

  beforeAll(async () => {
    receiver = await Receiver.start();
    service = await startTestService({
      env: { SERVICE_REPORT_SECRET: SECRET, SERVICE_API_TOKEN: API_TOKEN },
      alerting: { pollIntervalMs: 50 },
    });
    const create = (name: string) =>
      service.request('POST', '/api/jobs', { name, schedule: '@daily', command: 'true' }, auth);
    jobId = (await create('reported')).body.id;
    otherJobId = (await create('other')).body.id;
    await service.request(
      'PUT',
      `/api/jobs/${jobId}/alerts`,
      { webhooks: [{ url: `${receiver.url}/hook`, events: ['failed'] }] },
      auth,
    );
  });
  afterAll(async () => {
    await service.stop();
    await receiver.close();
  });

  it('records a reported attempt like a local one: row, output, counter, last status and one alert', async () => {
    const before = await failedTotal(service);
    const answer = await post(jobId, report());
    expect(answer.status).toBe(201);
    const execution = (await service.request('GET', `/api/executions/${answer.body.id}`, undefined, auth))
      .body;
    expect(execution).toMatchObject({
      jobId,
      jobName: 'reported',
      status: 'failed',
      exitCode: 3,
      attempt: 0,
      durationMs: 2500,
      stdout: 'partial output\n',
      stderr: 'boom\n',
      startedAt: '2026-11-23T10:00:00.000Z',
    });
    expect(await failedTotal(service)).toBe(before + 1);
    expect((await service.request('GET', `/api/jobs/${jobId}`, undefined, auth)).body.lastStatus).toBe(
      'failed',
    );
    await eventually(async () => receiver.to('/hook').length === 1);
    expect(receiver.to('/hook')[0]!.json).toMatchObject({ event: 'failed', execution: { exitCode: 3 } });
  });

  it('stores, counts and alerts a report that arrives twice (or ten times at once) once', async () => {
    const body = report({ podUid: 'dup-pod-uid', attempt: 1 });
    const before = await failedTotal(service);
    const alertsBefore = receiver.to('/hook').length;
    const answers = await Promise.all(Array.from({ length: 10 }, () => post(jobId, body)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    expect((await post(jobId, body)).body).toEqual({ duplicate: true });
    expect(await failedTotal(service)).toBe(before + 1);
    const rows = await service.db.pool.query(
      `SELECT count(*)::int AS n FROM executions WHERE report_key = $1`,
      ['pod:dup-pod-uid:1'],
    );
    expect(rows.rows[0].n).toBe(1);
    await eventually(async () => receiver.to('/hook').length === alertsBefore + 1);
  });

  it('queues an alert for the final attempt only, in the transaction that records it', async () => {
    const first = await post(jobId, report({ podUid: 'retried-pod', final: false }));
    const second = await post(jobId, report({ podUid: 'retried-pod', attempt: 1, final: true }));
    expect([first.status, second.status]).toEqual([201, 201]);
    const outbox = await service.db.pool.query(
      'SELECT execution_id FROM alert_outbox WHERE execution_id = ANY($1::bigint[])',
      [[first.body.id, second.body.id]],
    );
    expect(outbox.rows.map((row) => Number(row.execution_id))).toEqual([second.body.id]);
  });

  it('keeps the reason the pod’s runner gave (a timeout, a signal), bounded to one line', async () => {
    const answer = await post(
      jobId,
      report({
        podUid: 'signalled-pod',
        exitCode: 143,
        reason: { code: 'SIGTERM', message: 'the command was killed by SIGTERM\n(exit code 143)' },
      }),
    );
    expect(answer.status).toBe(201);
    const execution = (await service.request('GET', `/api/executions/${answer.body.id}`, undefined, auth))
      .body;
    expect(execution).toMatchObject({
      reason: 'SIGTERM',
      reasonMessage: 'the command was killed by SIGTERM (exit code 143)',
    });
    const plain = await post(jobId, report({ podUid: 'plain-pod', reason: null }));
    expect(
      (await service.request('GET', `/api/executions/${plain.body.id}`, undefined, auth)).body,
    ).toMatchObject({ reason: null, reasonMessage: null });
  });

  it('refuses a forged report: no token, another job’s token, the API token, or reports switched off', async () => {
    const before = await failedTotal(service);
    const body = report({ podUid: 'forged' });
    expect(await post(jobId, body, null)).toMatchObject({
      status: 403,
      body: { error: 'missing report token: send Authorization: Bearer <token>' },
    });
    expect(await post(jobId, body, reportTokenFor(SECRET, otherJobId))).toMatchObject({
      status: 403,
      body: { error: `the report token is not valid for job ${jobId}` },
    });
    expect((await post(jobId, body, API_TOKEN)).status).toBe(403);
    expect(
      (await post(jobId, body, reportTokenFor('another-secret-of-32-characters-or-more', jobId))).status,
    ).toBe(403);
    expect(await failedTotal(service)).toBe(before);
    expect(
      service.logger.lines.some((line) => line.msg === 'pod report refused' && line.status === 403),
    ).toBe(true);
  });

  it('answers a malformed report 400 naming the field, an unknown job 404, an oversized one 413', async () => {
    const cases: [unknown, string][] = [
      [report({ podUid: undefined }), 'podUid: is required and must be a string'],
      [report({ status: 'skipped' }), 'status: must be success, failed or timeout'],
      [report({ attempt: -1 }), 'attempt: must be at least 0'],
      [report({ finishedAt: '2026-11-23T09:00:00Z' }), 'finishedAt: must not be before startedAt'],
      [report({ startedAt: 'yesterday' }), 'startedAt: must be an ISO 8601 timestamp'],
      [report({ extra: 1 }), 'unknown field extra'],
      [report({ reason: 'OOMKilled' }), 'reason: must be an object { code, message }'],
      [
        report({ reason: { code: 'no spaces', message: '' } }),
        'reason.code: must be a CamelCase word such as SIGKILL',
      ],
      [
        report({ reason: { code: 'X', message: 'm'.repeat(1001) } }),
        'reason.message: must be at most 1000 characters',
      ],
      [42, 'request body must be a JSON object'],
    ];
    for (const [body, error] of cases) {
      expect(await post(jobId, body)).toMatchObject({ status: 400, body: { error } });
    }
    expect((await post(jobId, '{"podUid":')).status).toBe(400);
    expect(await post(99999, report())).toMatchObject({
      status: 404,
      body: { error: 'job 99999 not found' },
    });
    const huge = report({ podUid: 'huge', stdout: 'x'.repeat(5 * 1024 * 1024) });
    expect((await post(jobId, huge)).status).toBe(413);
    expect(await post(0, report(), 'whatever')).toMatchObject({
      status: 400,
      body: { error: 'id: must be a positive integer' },
    });
    expect((await service.request('GET', '/health')).status).toBe(200);
  });
});

describe('pod reports without SERVICE_REPORT_SECRET', () => {
  it('are refused with a message that names the setting', async () => {
    const service = await startTestService();
    try {
      const job = (
        await service.request('POST', '/api/jobs', { name: 'j', schedule: '@daily', command: 'true' })
      ).body;
      const answer = await service.request('POST', `/api/jobs/${job.id}/reports`, report(), {
        authorization: `Bearer ${reportTokenFor(SECRET, job.id)}`,
      });
      expect(answer).toMatchObject({
        status: 403,
        body: { error: 'reports are not accepted: the service has no SERVICE_REPORT_SECRET' },
      });
    } finally {
      await service.stop();
    }
  });
});
