import type { LogFields } from '../../src/logging/logger';
import { reportTokenFor } from '../../src/domain/reportToken';
import { ManualClock } from '../support/clock';
import { startTestService, type TestService } from '../support/service';

const SECRET = 'a-report-secret-of-at-least-32-characters';
const REFUSED = 'pod report refused';
/** What issue 38 sent: 2,000 reports, each naming a job id of 15,000 digits, without a token. */
const FLOOD = 2_000;
const HUGE_ID = '9'.repeat(15_000);
/** The most a logged field may hold (docs/kubernetes.md: refused reports). */
const FIELD_BOUND = 200;

const bytesOf = (lines: LogFields[]) => lines.reduce((sum, line) => sum + JSON.stringify(line).length + 1, 0);

/**
 * Anyone who can reach the service can send pod reports: refusing them must not let them write the
 * log. Each kind of refusal is logged once per period, at most a few kinds, fields cut to a small
 * bound; the next line logged says how many were not.
 */
describe('refused pod reports in the log', () => {
  let service: TestService;
  const clock = new ManualClock('2026-11-23T10:00:00Z');

  const report = {
    podUid: 'refused-pod',
    attempt: 0,
    final: true,
    status: 'success',
    exitCode: 0,
    startedAt: '2026-11-23T09:59:00.000Z',
    finishedAt: '2026-11-23T09:59:01.000Z',
  };
  const refusals = (from: number) => service.logger.lines.slice(from).filter((line) => line.msg === REFUSED);

  /** `count` reports from `send`, twenty at a time, each answered `status`. */
  async function flood(
    count: number,
    status: number,
    send: (i: number) => ReturnType<TestService['request']>,
  ) {
    for (let sent = 0; sent < count; sent += 20) {
      const answers = await Promise.all(
        Array.from({ length: Math.min(20, count - sent) }, (_, k) => send(sent + k)),
      );
      for (const answer of answers) expect(answer.status).toBe(status);
    }
  }

  beforeAll(async () => {
    service = await startTestService({ clock, env: { SERVICE_REPORT_SECRET: SECRET } });
  });
  afterAll(async () => {
    await service.stop();
  });

  it('writes a bounded log for 2,000 refused reports naming a 15,000-digit job id', async () => {
    const before = service.logger.lines.length;
    await flood(FLOOD, 400, () => service.request('POST', `/api/jobs/${HUGE_ID}/reports`, report));
    const written = service.logger.lines.slice(before);
    // Without the bound this was 2,000 lines of 15 kB each: 30 MB.
    expect(bytesOf(written)).toBeLessThan(4_096);
    const logged = written.filter((line) => line.msg === REFUSED);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ status: 400, reason: 'id: must be a positive integer' });
    expect(String(logged[0]!.jobId).length).toBeLessThanOrEqual(FIELD_BOUND);
    expect(String(logged[0]!.jobId)).toMatch(/^9+… \(15000 characters\)$/);
  });

  it('logs at most a few kinds of refusal per period, however many jobs a flood names', async () => {
    const before = service.logger.lines.length;
    // Each id is a refusal of its own kind (a 403 names the job): 2,000 kinds.
    await flood(FLOOD, 403, (i) =>
      service.request('POST', `/api/jobs/${i + 1}/reports`, report, { authorization: 'Bearer forged' }),
    );
    const written = service.logger.lines.slice(before);
    expect(written.filter((line) => line.msg === REFUSED).length).toBeLessThanOrEqual(64);
    expect(bytesOf(written)).toBeLessThan(64 * 1_024);
  });

  it('logs a refusal again in the next period, with the count of those not logged meanwhile', async () => {
    const job = (
      await service.request('POST', '/api/jobs', {
        name: 'refused-later',
        schedule: '@daily',
        command: 'true',
      })
    ).body.id as number;
    const wrongToken = { authorization: `Bearer ${reportTokenFor(SECRET, job + 1)}` };
    const send = () => service.request('POST', `/api/jobs/${job}/reports`, report, wrongToken);
    const before = service.logger.lines.length;
    expect((await send()).status).toBe(403);
    // The kinds this period logs are taken by the flood above.
    expect(refusals(before)).toEqual([]);

    clock.advance(60 * 60 * 1000);
    expect((await send()).status).toBe(403);
    const renewed = refusals(before);
    expect(renewed).toHaveLength(1);
    expect(renewed[0]).toMatchObject({
      status: 403,
      reason: `the report token is not valid for job ${job}`,
      notLogged: expect.any(Number),
    });
    expect(renewed[0]!.notLogged).toBeGreaterThanOrEqual(FLOOD - 64);
  });
});
