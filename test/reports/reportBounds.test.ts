import { reportTokenFor } from '../../src/domain/reportToken';
import { startTestService, type TestService } from '../support/service';

const SECRET = 'a-report-secret-of-at-least-32-characters';
const MIB = 1024 * 1024;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * A report is bounded as docs/kubernetes.md says whoever sends it: times within a window (400 naming the
 * field outside it, never a 500 that the pod would retry for ten minutes), any duration within it
 * stored, and at most the last 1 MiB of each stream kept.
 */
describe('the bounds of a pod report', () => {
  let service: TestService;
  let jobId: number;
  let pod = 0;

  const report = (overrides: Record<string, unknown> = {}) => ({
    podUid: `bounded-pod-${++pod}`,
    attempt: 0,
    final: true,
    status: 'success',
    exitCode: 0,
    startedAt: '2026-11-23T10:00:00.000Z',
    finishedAt: '2026-11-23T10:00:01.000Z',
    ...overrides,
  });
  const post = (body: unknown) =>
    service.request('POST', `/api/jobs/${jobId}/reports`, body, {
      authorization: `Bearer ${reportTokenFor(SECRET, jobId)}`,
    });
  const stored = async (id: number) => (await service.request('GET', `/api/executions/${id}`)).body;

  beforeAll(async () => {
    service = await startTestService({ env: { SERVICE_REPORT_SECRET: SECRET } });
    jobId = (
      await service.request('POST', '/api/jobs', { name: 'bounded', schedule: '@daily', command: 'true' })
    ).body.id;
  });
  afterAll(async () => {
    await service.stop();
  });

  it.each([
    [{ startedAt: '0001-01-01T00:00:00Z' }, 'startedAt: must not be before 2000-01-01T00:00:00Z'],
    [{ startedAt: '1999-12-31T23:59:59.999Z' }, 'startedAt: must not be before 2000-01-01T00:00:00Z'],
    [
      { startedAt: '2026-11-23T10:00:00Z', finishedAt: '9999-12-31T23:59:59Z' },
      /^finishedAt: must not be more than an hour after the service's clock \(.+Z\)$/,
    ],
    [
      { startedAt: '2200-01-01T00:00:00Z', finishedAt: '2200-01-01T00:00:01Z' },
      /^startedAt: must not be more than an hour after the service's clock/,
    ],
  ])('answers absurd times %j with a 400 naming the field', async (times, error) => {
    const answer = await post(report(times));
    expect(answer.status).toBe(400);
    expect(answer.body.error).toEqual(typeof error === 'string' ? error : expect.stringMatching(error));
  });

  it('stores a run of any length within the window: 53 days, from the first instant allowed', async () => {
    const long = await post(
      report({ startedAt: '2026-10-01T00:00:00.000Z', finishedAt: '2026-11-23T00:00:00.250Z' }),
    );
    expect(long.status).toBe(201);
    expect(await stored(long.body.id)).toMatchObject({ durationMs: 53 * DAY_MS + 250 });
    const longest = await post(report({ startedAt: '2000-01-01T00:00:00.000Z' }));
    expect(longest.status).toBe(201);
    expect((await stored(longest.body.id)).durationMs).toBe(
      Date.parse('2026-11-23T10:00:01.000Z') - Date.parse('2000-01-01T00:00:00.000Z'),
    );
    // The duration summary adds them up without overflowing either.
    const metrics = (await service.request('GET', '/metrics')).text;
    const sum = Number(/^service_execution_duration_seconds_sum (\S+)$/m.exec(metrics)![1]);
    expect(sum).toBeGreaterThan(26 * 365 * 86_400);
  });

  it('keeps the last 1 MiB of a 3 MiB stdout, after a line counting what was dropped', async () => {
    const lines = Array.from({ length: 3 * 16_384 }, (_, i) => `${String(i).padStart(63, '.')}\n`).join('');
    expect(Buffer.byteLength(lines)).toBe(3 * MIB);
    const answer = await post(report({ stdout: lines, stderr: 'short\n' }));
    expect(answer.status).toBe(201);
    const { stdout, stderr } = await stored(answer.body.id);
    expect(stdout).toBe(`[... ${2 * MIB} bytes of earlier output dropped ...]\n${lines.slice(-MIB)}`);
    expect(stderr).toBe('short\n');
  });

  it('counts on from the line of a runner that cut the output already', async () => {
    const body = 'é'.repeat(MIB / 2 + 10); // 1 MiB + 20 bytes of UTF-8
    const answer = await post(report({ stderr: `[... 500 bytes of earlier output dropped ...]\n${body}` }));
    expect(answer.status).toBe(201);
    const { stderr } = await stored(answer.body.id);
    expect(stderr).toBe(`[... 520 bytes of earlier output dropped ...]\n${'é'.repeat(MIB / 2)}`);
    // Within the bound, a runner's cut output is stored as it came.
    const within = `[... 7 bytes of earlier output dropped ...]\n${'x'.repeat(MIB)}`;
    const kept = await post(report({ stderr: within }));
    expect((await stored(kept.body.id)).stderr).toBe(within);
  });

  it('refuses a body over 4 MiB with 413 and takes one just under it', async () => {
    expect((await post(report({ stdout: 'x'.repeat(4 * MIB) }))).status).toBe(413);
    const under = await post(report({ stdout: 'x'.repeat(4 * MIB - 1024) }));
    expect(under.status).toBe(201);
    expect(Buffer.byteLength((await stored(under.body.id)).stdout)).toBeLessThanOrEqual(MIB + 64);
  });
});
