import { readEnvironment } from '../../src/config/environment';
import type { Database } from '../../src/store/database';
import { createTestDatabase } from '../support/database';
import { eventually, startTestService, type TestService } from '../support/service';
import { Receiver } from './support/receiver';
import { generateCertificate, type TestCertificate, TestSmtpServer } from './support/smtp';

const USER = 'crondeck-alerts';
const PASSWORD = 'correct horse battery staple';

function smtpEnv(server: TestSmtpServer, secure: boolean): Record<string, string> {
  return {
    SERVICE_SMTP_HOST: '127.0.0.1',
    SERVICE_SMTP_PORT: String(server.port),
    SERVICE_SMTP_SECURE: String(secure),
    SERVICE_SMTP_FROM: 'crondeck@example.com',
    SERVICE_SMTP_USERNAME: USER,
    SERVICE_SMTP_PASSWORD: PASSWORD,
  };
}

async function runJob(service: TestService, job: Record<string, unknown>, alerts: unknown) {
  const created = await service.request('POST', '/api/jobs', { schedule: '30 2 * * *', ...job });
  expect(created.status).toBe(201);
  const put = await service.request('PUT', `/api/jobs/${created.body.id}/alerts`, alerts);
  expect(put.status).toBe(200);
  await service.request('POST', `/api/jobs/${created.body.id}/run`);
  await service.local.idle();
  const list = await service.request('GET', `/api/executions?jobId=${created.body.id}&limit=1`);
  return (await service.request('GET', `/api/executions/${list.body[0].id}`)).body;
}

describe('e-mail alerts', () => {
  let certificate: TestCertificate;
  beforeAll(() => {
    certificate = generateCertificate();
  });

  it('are sent with STARTTLS and AUTH, subject and body as the spec says', async () => {
    const smtp = await TestSmtpServer.start({ certificate, secure: false, user: USER, password: PASSWORD });
    const service = await startTestService({
      env: smtpEnv(smtp, false),
      alerting: { pollIntervalMs: 50, smtpTls: { ca: certificate.cert } },
    });
    try {
      const execution = await runJob(
        service,
        { name: 'nightly-backup', command: `echo starting; echo 'disk <full> & "stuck"' >&2; exit 2` },
        { emails: [{ to: ['ops@example.com', 'dba@example.com'], events: ['failed', 'timeout'] }] },
      );
      expect(execution.durationMs).toBeLessThan(1000);
      await eventually(async () => smtp.received.length >= 1);
      const [received] = smtp.received;
      expect(received!.secure).toBe(true);
      expect(received!.user).toBe(USER);
      expect(received!.rcptTo).toEqual(['ops@example.com', 'dba@example.com']);

      const mail = received!.mail;
      expect(mail.subject).toBe('[service] ✗ nightly-backup failed');
      expect(mail.from?.text).toBe('crondeck@example.com');
      expect(mail.headers.get('auto-submitted')).toBe('auto-generated');
      expect(mail.messageId).toMatch(/^<crondeck-alert-\d+\.\d+@example\.com>$/);
      expect(mail.text).toBe(
        [
          'Job: nightly-backup',
          'Status: failed',
          'Schedule: 30 2 * * *',
          `Started: ${execution.startedAt}`,
          `Duration: ${execution.durationMs} ms`,
          'Exit code: 2',
          'Attempt: 0',
          '',
          'Last 500 characters of stderr:',
          'disk <full> & "stuck"',
          '',
        ].join('\n'),
      );
      // The HTML alternative shows the same, escaped.
      expect(mail.html).toContain('<pre>disk &#60;full&#62; &#38; &#34;stuck&#34;\n</pre>');
      expect(mail.html).not.toContain('<full>');
    } finally {
      await service.stop();
      await smtp.close();
    }
  });

  it('are sent with TLS on connect when SERVICE_SMTP_SECURE is true, with stdout for a success', async () => {
    const smtp = await TestSmtpServer.start({ certificate, secure: true, user: USER, password: PASSWORD });
    const service = await startTestService({
      env: smtpEnv(smtp, true),
      alerting: { pollIntervalMs: 50, smtpTls: { ca: certificate.cert } },
    });
    try {
      const long = 'x'.repeat(600) + 'THE END';
      const execution = await runJob(
        service,
        { name: 'report', command: `printf '${long}'` },
        { emails: [{ to: ['ops@example.com'], events: ['success'] }] },
      );
      expect(execution.durationMs).toBeLessThan(1000);
      await eventually(async () => smtp.received.length >= 1);
      const [received] = smtp.received;
      expect(received!.secure).toBe(true);
      expect(received!.user).toBe(USER);
      expect(received!.mail.subject).toBe('[service] ✓ report succeeded');
      expect(received!.mail.text).toBe(
        [
          'Job: report',
          'Status: success',
          'Schedule: 30 2 * * *',
          `Started: ${execution.startedAt}`,
          `Duration: ${execution.durationMs} ms`,
          'Exit code: 0',
          'Attempt: 0',
          '',
          'Last 500 characters of stdout:',
          long.slice(-500),
          '',
        ].join('\n'),
      );
    } finally {
      await service.stop();
      await smtp.close();
    }
  });

  it('trust a self-signed certificate only through the explicit test setting', async () => {
    const smtp = await TestSmtpServer.start({ certificate, secure: true, user: USER, password: PASSWORD });
    const db: Database = await createTestDatabase();
    const service = await startTestService({
      db,
      env: smtpEnv(smtp, true),
      alerting: { pollIntervalMs: 50, retryDelaysMs: [] },
    });
    try {
      await runJob(
        service,
        { name: 'untrusted', command: 'exit 1' },
        { emails: [{ to: ['ops@example.com'], events: ['failed'] }] },
      );
      await eventually(async () => {
        const { rows } = await db.pool.query('SELECT state, last_error FROM alert_outbox');
        return rows[0]?.state === 'failed' && rows[0];
      });
      expect(smtp.received).toHaveLength(0);
      const failure = service.logger.lines.find((l) => l.msg === 'alert delivery failed; giving up');
      expect(failure).toMatchObject({ channel: 'email', destination: 'ops@example.com' });
      expect(String(failure!.error)).toMatch(/self[- ]signed certificate/);
    } finally {
      await service.stop();
      await db.close();
      await smtp.close();
    }
  });

  // Socket timeouts bound only silences; the send as a whole must end within the outbox claim,
  // or another claim would send the same alert again.
  it('give up a send that outlasts its deadline, as a failed attempt to retry', async () => {
    const smtp = await TestSmtpServer.start({
      certificate,
      secure: true,
      user: USER,
      password: PASSWORD,
      stallAfterData: true,
    });
    const db: Database = await createTestDatabase();
    const service = await startTestService({
      db,
      env: smtpEnv(smtp, true),
      alerting: {
        pollIntervalMs: 50,
        retryDelaysMs: [60_000],
        emailSendTimeoutMs: 300,
        smtpTls: { ca: certificate.cert },
      },
    });
    try {
      await runJob(
        service,
        { name: 'stuck-smtp', command: 'exit 1' },
        { emails: [{ to: ['ops@example.com'], events: ['failed'] }] },
      );
      const row = await eventually(async () => {
        const { rows } = await db.pool.query(
          'SELECT state, attempts, last_error, locked_until FROM alert_outbox',
        );
        return rows[0]?.last_error && rows[0];
      });
      expect(row).toMatchObject({
        state: 'pending',
        attempts: 1,
        last_error: 'timed out after 300 ms',
        locked_until: null,
      });
      expect(smtp.received).toHaveLength(0);
    } finally {
      await service.stop();
      await db.close();
      await smtp.close();
    }
  });

  // Issue 38: against a server that offers AUTH and no STARTTLS, the password went out in base64 over
  // plain TCP. A user name now means TLS or no AUTH at all, unless the configuration says otherwise.
  it('never send the password over a connection without TLS: the delivery fails saying so, and is retried', async () => {
    const smtp = await TestSmtpServer.start({
      certificate,
      secure: false,
      startTls: false,
      user: USER,
      password: PASSWORD,
    });
    const db: Database = await createTestDatabase();
    const service = await startTestService({
      db,
      env: smtpEnv(smtp, false),
      alerting: { pollIntervalMs: 50, retryDelaysMs: [100], smtpTls: { ca: certificate.cert } },
    });
    try {
      await runJob(
        service,
        { name: 'no-starttls', command: 'exit 1' },
        { emails: [{ to: ['ops@example.com'], events: ['failed'] }] },
      );
      const row = await eventually(async () => {
        const { rows } = await db.pool.query('SELECT state, attempts, last_error FROM alert_outbox');
        return rows[0]?.state !== 'pending' && rows[0];
      });
      expect(smtp.authentications).toEqual([]);
      expect(row).toMatchObject({ state: 'failed', attempts: 2 });
      expect(row.last_error).toMatch(
        /^TLS is required to authenticate to the SMTP server, and it did not start: /,
      );
      expect(row.last_error).toContain('SERVICE_SMTP_ALLOW_PLAINTEXT_AUTH');
      const retried = service.logger.lines.find((l) => l.msg === 'alert delivery failed; will retry');
      expect(retried).toMatchObject({ channel: 'email', attempt: 1, error: row.last_error });
      expect(smtp.received).toEqual([]);
      const written = JSON.stringify(service.logger.lines) + JSON.stringify(row);
      expect(written).not.toContain(PASSWORD);
      expect(written).not.toContain(Buffer.from(`\0${USER}\0${PASSWORD}`).toString('base64'));
    } finally {
      await service.stop();
      await db.close();
      await smtp.close();
    }
  });

  it('authenticate over a plain connection only with SERVICE_SMTP_ALLOW_PLAINTEXT_AUTH=true', async () => {
    const smtp = await TestSmtpServer.start({
      certificate,
      secure: false,
      startTls: false,
      user: USER,
      password: PASSWORD,
    });
    const service = await startTestService({
      env: { ...smtpEnv(smtp, false), SERVICE_SMTP_ALLOW_PLAINTEXT_AUTH: 'true' },
      alerting: { pollIntervalMs: 50, smtpTls: { ca: certificate.cert } },
    });
    try {
      await runJob(
        service,
        { name: 'plaintext-allowed', command: 'exit 1' },
        { emails: [{ to: ['ops@example.com'], events: ['failed'] }] },
      );
      await eventually(async () => smtp.received.length >= 1);
      expect(smtp.authentications).toEqual([{ username: USER, password: PASSWORD, secure: false }]);
      expect(smtp.received[0]).toMatchObject({ secure: false, user: USER });
    } finally {
      await service.stop();
      await smtp.close();
    }
  });

  it('are skipped with one warning when SERVICE_SMTP_HOST is not set, and webhooks still fire', async () => {
    const receiver = await Receiver.start();
    const db: Database = await createTestDatabase();
    const service = await startTestService({ db, alerting: { pollIntervalMs: 50 } });
    try {
      for (const name of ['first', 'second']) {
        await runJob(
          service,
          { name, command: 'exit 1' },
          {
            webhooks: [{ url: `${receiver.url}/${name}`, events: ['failed'] }],
            emails: [{ to: ['ops@example.com'], events: ['failed'] }],
          },
        );
      }
      await eventually(async () => receiver.requests.length >= 2);
      const warnings = service.logger.lines.filter((l) => l.level === 'warn');
      expect(warnings).toEqual([
        expect.objectContaining({ msg: 'e-mail alerts are skipped: SERVICE_SMTP_HOST is not set' }),
      ]);
      const { rows } = await db.pool.query('SELECT channel FROM alert_outbox ORDER BY id');
      expect(rows).toEqual([{ channel: 'webhook' }, { channel: 'webhook' }]);
    } finally {
      await service.stop();
      await db.close();
      await receiver.close();
    }
  });
});

describe('SERVICE_SMTP_ALLOW_PLAINTEXT_AUTH', () => {
  it('is off unless set to true', () => {
    const smtp = (value?: string) =>
      readEnvironment({
        SERVICE_SMTP_HOST: 'mail.example.com',
        ...(value !== undefined && { SERVICE_SMTP_ALLOW_PLAINTEXT_AUTH: value }),
      }).smtp;
    expect(smtp()?.allowPlaintextAuth).toBe(false);
    expect(smtp('')?.allowPlaintextAuth).toBe(false);
    expect(smtp('false')?.allowPlaintextAuth).toBe(false);
    expect(smtp('true')?.allowPlaintextAuth).toBe(true);
    expect(() => smtp('yes')).toThrow(
      'invalid environment: SERVICE_SMTP_ALLOW_PLAINTEXT_AUTH: must be true or false',
    );
  });
});
