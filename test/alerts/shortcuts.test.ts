import { alertConfigFromShortcuts } from '../../src/alerts/shortcuts';
import { parseJobsFile } from '../../src/config/jobsFile';
import type { Database } from '../../src/store/database';
import { createTestDatabase } from '../support/database';
import { eventually, startTestService } from '../support/service';
import { Receiver } from './support/receiver';
import { generateCertificate, TestSmtpServer } from './support/smtp';

describe('config-file alert shortcuts', () => {
  it.each([
    [
      'on_failure',
      'https://x.io/h',
      { webhooks: [{ url: 'https://x.io/h', events: ['failed', 'timeout'] }], emails: [] },
    ],
    [
      'on_success',
      'https://x.io/h',
      { webhooks: [{ url: 'https://x.io/h', events: ['success'] }], emails: [] },
    ],
    [
      'on_complete',
      'https://x.io/h',
      { webhooks: [{ url: 'https://x.io/h', events: ['success', 'failed', 'timeout'] }], emails: [] },
    ],
    [
      'on_failure_email',
      'ops@example.com',
      { webhooks: [], emails: [{ to: ['ops@example.com'], events: ['failed', 'timeout'] }] },
    ],
    [
      'on_success_email',
      'ops@example.com',
      { webhooks: [], emails: [{ to: ['ops@example.com'], events: ['success'] }] },
    ],
    [
      'on_complete_email',
      ' a@example.com, b@example.com ,a@example.com',
      {
        webhooks: [],
        emails: [{ to: ['a@example.com', 'b@example.com'], events: ['success', 'failed', 'timeout'] }],
      },
    ],
  ])('maps %s to the events of the spec', (key, value, expected) => {
    expect(alertConfigFromShortcuts({ name: 'j', [key]: value })).toEqual(expected);
  });

  it('returns null for an entry without shortcuts', () => {
    expect(alertConfigFromShortcuts({ name: 'j', schedule: '@daily', command: 'true' })).toBeNull();
  });

  it.each([
    ['on_failure', 'ftp://x.io/h', 'on_failure: must be an http:// or https:// URL'],
    ['on_complete', 42, 'on_complete: is required and must be a string'],
    [
      'on_failure',
      'https://events.pagerduty.com/v2/enqueue?routing_key=abc',
      'on_failure: a PagerDuty destination needs ?routing_key= once',
    ],
    [
      'on_failure_email',
      'ops@example.com, not an address',
      'on_failure_email.1: must not contain spaces, line breaks or control characters',
    ],
    ['on_success_email', ' , ', 'on_success_email: must name at least one address'],
    [
      'on_complete_email',
      'ops@example.com\nBcc: x@y.z',
      'on_complete_email.0: must not contain spaces, line breaks or control characters',
    ],
  ])('rejects a bad %s naming the key', (key, value, message) => {
    expect(() => alertConfigFromShortcuts({ [key]: value })).toThrow(message);
  });
});

describe('a config-file job’s alert_policy', () => {
  it('is the job’s policy, beside its shortcuts, and a policy alone is a configuration', () => {
    expect(
      alertConfigFromShortcuts({
        on_failure: 'https://x.io/h',
        alert_policy: { afterConsecutiveFailures: 3, recovery: true },
      }),
    ).toEqual({
      webhooks: [{ url: 'https://x.io/h', events: ['failed', 'timeout'] }],
      emails: [],
      policy: { afterConsecutiveFailures: 3, recovery: true },
    });
    expect(alertConfigFromShortcuts({ alert_policy: { suspendAfterFailures: 5 } })).toEqual({
      webhooks: [],
      emails: [],
      policy: { suspendAfterFailures: 5 },
    });
    expect(alertConfigFromShortcuts({ alert_policy: {} })).toBeNull();
  });

  it('refuses a bad policy naming the job and the key, so the file is not applied', () => {
    const file = (policy: string) => `jobs:
  - { name: nightly, schedule: "0 2 * * *", command: "true", alert_policy: ${policy} }
`;
    expect(() => parseJobsFile(file('{ afterConsecutiveFailures: 0 }'), 'jobs.yaml')).toThrow(
      'jobs.yaml: job "nightly": alert_policy.afterConsecutiveFailures: must be at least 1',
    );
    expect(() =>
      parseJobsFile(
        file('{ maintenance: [{ schedule: "0 2 * * *", durationSeconds: 60, timezone: Nowhere }] }'),
        'jobs.yaml',
      ),
    ).toThrow(
      'jobs.yaml: job "nightly": alert_policy.maintenance.0.timezone: must be an IANA time zone name',
    );
    expect(() => parseJobsFile(file('{ recover: true }'), 'jobs.yaml')).toThrow(
      'jobs.yaml: job "nightly": alert_policy: unknown field recover',
    );
    const [declared] = parseJobsFile(file('{ recovery: true }'), 'jobs.yaml');
    expect(declared!.input).not.toHaveProperty('alert_policy');
  });
});

describe('config-file alert shortcuts in a running service', () => {
  let receiver: Receiver;
  let smtp: TestSmtpServer;
  let db: Database;
  const certificate = generateCertificate();

  beforeAll(async () => {
    receiver = await Receiver.start();
    smtp = await TestSmtpServer.start({ certificate, secure: false, user: 'u', password: 'p' });
  });
  afterAll(async () => {
    await receiver.close();
    await smtp.close();
  });
  beforeEach(async () => {
    db = await createTestDatabase();
  });
  afterEach(async () => {
    await db.close();
  });

  // async: a bad file throws in parseJobsFile, which the tests expect as a rejection.
  const start = async (text: string) =>
    startTestService({
      db,
      declaredJobs: parseJobsFile(text, 'jobs.yaml'),
      env: {
        SERVICE_SMTP_HOST: '127.0.0.1',
        SERVICE_SMTP_PORT: String(smtp.port),
        SERVICE_SMTP_USERNAME: 'u',
        SERVICE_SMTP_PASSWORD: 'p',
      },
      alerting: { pollIntervalMs: 50, smtpTls: { ca: certificate.cert } },
    });

  it('become the jobs’ alert configuration, and webhook and e-mail shortcuts fire independently', async () => {
    const service = await start(`jobs:
  - name: backup
    schedule: "0 2 * * *"
    command: "exit 1"
    on_failure: ${receiver.url}/backup-failure
    on_complete_email: "ops@example.com, dba@example.com"
  - name: report
    schedule: "@hourly"
    command: "echo ok"
    on_success: ${receiver.url}/report-success
    on_complete: ${receiver.url}/report-complete
    on_failure_email: ops@example.com
    on_success_email: [a@example.com, b@example.com]
`);
    try {
      const jobs: { id: number; name: string }[] = (await service.request('GET', '/api/jobs')).body;
      const id = (name: string) => jobs.find((job) => job.name === name)!.id;
      expect((await service.request('GET', `/api/jobs/${id('backup')}/alerts`)).body).toEqual({
        webhooks: [{ url: `${receiver.url}/backup-failure`, events: ['failed', 'timeout'] }],
        emails: [{ to: ['ops@example.com', 'dba@example.com'], events: ['success', 'failed', 'timeout'] }],
      });
      expect((await service.request('GET', `/api/jobs/${id('report')}/alerts`)).body).toEqual({
        webhooks: [
          { url: `${receiver.url}/report-success`, events: ['success'] },
          { url: `${receiver.url}/report-complete`, events: ['success', 'failed', 'timeout'] },
        ],
        emails: [
          { to: ['ops@example.com'], events: ['failed', 'timeout'] },
          { to: ['a@example.com', 'b@example.com'], events: ['success'] },
        ],
      });

      await service.request('POST', `/api/jobs/${id('backup')}/run`);
      await service.request('POST', `/api/jobs/${id('report')}/run`);
      await service.local.idle();
      await eventually(async () => receiver.requests.length >= 3 && smtp.received.length >= 2);
      await new Promise((resolve) => setTimeout(resolve, 300));

      expect(receiver.requests.map((r) => `${r.path} ${r.json.event}`).sort()).toEqual([
        '/backup-failure failed',
        '/report-complete success',
        '/report-success success',
      ]);
      expect(smtp.received.map((m) => `${m.rcptTo.join(',')} ${m.mail.subject}`).sort()).toEqual([
        'a@example.com,b@example.com [service] ✓ report succeeded',
        'ops@example.com,dba@example.com [service] ✗ backup failed',
      ]);
    } finally {
      await service.stop();
    }
  });

  it('carry the policy to the API, and a restart with the same file keeps the streak', async () => {
    const text = `jobs:
  - name: flaky
    schedule: "0 2 * * *"
    command: "exit 1"
    on_failure: ${receiver.url}/flaky
    alert_policy: { afterConsecutiveFailures: 2 }
`;
    let service = await start(text);
    const id = (await service.request('GET', '/api/jobs')).body[0].id as number;
    expect((await service.request('GET', `/api/jobs/${id}/alerts`)).body).toEqual({
      webhooks: [{ url: `${receiver.url}/flaky`, events: ['failed', 'timeout'] }],
      emails: [],
      policy: { afterConsecutiveFailures: 2 },
    });
    await service.request('POST', `/api/jobs/${id}/run`);
    await service.local.idle();
    await service.stop();
    service = await start(text);
    try {
      await service.request('POST', `/api/jobs/${id}/run`);
      await service.local.idle();
      await eventually(async () => receiver.to('/flaky').length === 1);
      expect(receiver.to('/flaky')[0]!.json).toMatchObject({ event: 'failed', consecutiveFailures: 2 });
    } finally {
      await service.stop();
    }
  });

  it('are taken back when the file drops them, without touching a configuration set through the API', async () => {
    const first = await start(`jobs:
  - { name: backup, schedule: "0 2 * * *", command: "true", on_failure: "${receiver.url}/x" }
  - { name: plain, schedule: "0 3 * * *", command: "true" }
`);
    const jobs: { id: number; name: string }[] = (await first.request('GET', '/api/jobs')).body;
    const plainId = jobs.find((job) => job.name === 'plain')!.id;
    const backupId = jobs.find((job) => job.name === 'backup')!.id;
    const manual = { webhooks: [{ url: 'https://example.com/manual', events: ['success'] }], emails: [] };
    expect((await first.request('PUT', `/api/jobs/${plainId}/alerts`, manual)).status).toBe(200);
    await first.stop();

    const second = await start(`jobs:
  - { name: backup, schedule: "0 2 * * *", command: "true" }
  - { name: plain, schedule: "0 3 * * *", command: "true" }
`);
    try {
      expect((await second.request('GET', `/api/jobs/${backupId}/alerts`)).body).toEqual({
        webhooks: [],
        emails: [],
      });
      expect((await second.request('GET', `/api/jobs/${plainId}/alerts`)).body).toEqual(manual);
    } finally {
      await second.stop();
    }
  });

  it('refuse to start with a bad shortcut, naming the job and key, and apply nothing', async () => {
    await expect(
      start(`jobs:
  - { name: good, schedule: "0 2 * * *", command: "true", on_success: "https://example.com/ok" }
  - { name: bad, schedule: "0 2 * * *", command: "true", on_failure_email: "ops@example.com;rm" }
`),
    ).rejects.toThrow('job "bad": on_failure_email.0: must be an e-mail address');
    const { rows } = await db.pool.query('SELECT count(*)::int AS n FROM jobs');
    expect(rows[0].n).toBe(0);
  });
});
