import type { Database } from '../../src/store/database';
import { createTestDatabase } from '../support/database';
import { eventually, startTestService, type TestService } from '../support/service';
import { untilNoAlertInFlight } from './support/outbox';
import { type ReceivedRequest, Receiver } from './support/receiver';
import { verifyStandardWebhook } from './support/standardWebhooks';

const KEY = Buffer.from('0123456789abcdef0123456789abcdef', 'utf8');
const SECRET = `whsec_${KEY.toString('base64')}`;
const OTHER_SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;

const receivedAt = (request: ReceivedRequest) => Number(request.headers['webhook-timestamp']);

describe('signed generic webhooks', () => {
  let db: Database;
  let receiver: Receiver;
  let service: TestService;

  beforeAll(async () => {
    db = await createTestDatabase();
    receiver = await Receiver.start();
    service = await startTestService({ db, alerting: { pollIntervalMs: 50, retryDelaysMs: [150, 150] } });
  });
  afterAll(async () => {
    await service.stop();
    await receiver.close();
    await db.close();
  });
  beforeEach(() => {
    receiver.requests.length = 0;
    receiver.respondWith(() => ({ status: 204 }));
  });

  let jobs = 0;
  async function failingJob(): Promise<number> {
    jobs += 1;
    const created = await service.request('POST', '/api/jobs', {
      name: `signed-${jobs}`,
      schedule: '@daily',
      command: 'echo "naïve 😀" >&2; exit 2',
    });
    return created.body.id;
  }
  async function runOnce(jobId: number): Promise<void> {
    expect((await service.request('POST', `/api/jobs/${jobId}/run`)).status).toBe(200);
    await service.local.idle();
  }
  const put = (jobId: number, webhooks: unknown[]) =>
    service.request('PUT', `/api/jobs/${jobId}/alerts`, { webhooks });

  it('signs every attempt with the alert’s webhook-id; a receiver can verify it and refuse a replay', async () => {
    receiver.respondWith((_, index) => (index === 0 ? { status: 500, body: 'busy' } : { status: 204 }));
    const jobId = await failingJob();
    expect(
      (await put(jobId, [{ url: `${receiver.url}/signed`, events: ['failed'], secret: SECRET }])).status,
    ).toBe(200);
    await runOnce(jobId);
    await eventually(async () => receiver.requests.length >= 1);
    // The alert outlives its job, and stays signed.
    expect((await service.request('DELETE', `/api/jobs/${jobId}`)).status).toBe(200);
    await eventually(async () => receiver.requests.length >= 2);

    const [first, retry] = receiver.requests as [ReceivedRequest, ReceivedRequest];
    expect([first.answered, retry.answered]).toEqual([500, 204]);
    for (const request of [first, retry]) {
      expect(verifyStandardWebhook(SECRET, request.headers, request.text)).toBe(true);
      expect(verifyStandardWebhook(OTHER_SECRET, request.headers, request.text)).toBe(false);
      expect(request.headers['webhook-id']).toBe(request.headers['idempotency-key']);
      expect(Math.abs(receivedAt(request) - Date.now() / 1000)).toBeLessThan(60);
    }
    expect(retry.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(first.headers['webhook-id']).toMatch(/^crondeck-alert-\d+$/);
    expect(retry.json).toMatchObject({ event: 'failed', job: { id: jobId }, execution: { exitCode: 2 } });

    // Played again ten minutes later, the request is too old; a fresh timestamp breaks the signature;
    // so does a changed body.
    const later = receivedAt(retry) + 600;
    expect(verifyStandardWebhook(SECRET, retry.headers, retry.text, later)).toBe(false);
    const restamped = { ...retry.headers, 'webhook-timestamp': String(later) };
    expect(verifyStandardWebhook(SECRET, restamped, retry.text, later)).toBe(false);
    expect(verifyStandardWebhook(SECRET, retry.headers, retry.text.replace('"failed"', '"success"'))).toBe(
      false,
    );

    // Delivered: the outbox keeps no copy of the secret.
    await untilNoAlertInFlight(db.pool);
    const { rows } = await db.pool.query('SELECT state, signing_secret FROM alert_outbox WHERE job_id = $1', [
      jobId,
    ]);
    expect(rows).toEqual([{ state: 'delivered', signing_secret: null }]);
  });

  it('never shows the secret: the PUT and GET answer signed: true, and no log line holds it', async () => {
    receiver.respondWith((_, index) => (index === 0 ? { status: 503 } : { status: 204 }));
    const jobId = await failingJob();
    const webhook = { url: `${receiver.url}/hook`, events: ['failed'] };
    const answer = await put(jobId, [{ ...webhook, secret: SECRET }]);
    expect(answer.body).toEqual({ webhooks: [{ ...webhook, signed: true }], emails: [] });
    const read = await service.request('GET', `/api/jobs/${jobId}/alerts`);
    expect(read.body).toEqual({ webhooks: [{ ...webhook, signed: true }], emails: [] });
    // A secret that is not one is refused without being quoted.
    const bad = await put(jobId, [{ ...webhook, secret: 'whsec_c2hvcnQ=' }]);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe(
      'webhooks.0.secret: must be whsec_ followed by the base64 of a 24 to 64 byte key',
    );

    await runOnce(jobId);
    await eventually(async () => receiver.requests.length >= 2);
    expect(verifyStandardWebhook(SECRET, receiver.requests[1]!.headers, receiver.requests[1]!.text)).toBe(
      true,
    );
    for (const text of [answer.text, read.text, bad.text, JSON.stringify(service.logger.lines)]) {
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(KEY.toString('base64'));
    }
    expect(service.logger.lines.some((line) => line.msg === 'alert delivery failed; will retry')).toBe(true);
  });

  it('keeps the signing through a PUT only when asked: signed: true keeps, secret replaces, signed: false drops', async () => {
    const jobId = await failingJob();
    const webhook = { url: `${receiver.url}/rules`, events: ['failed'] };
    expect((await put(jobId, [{ ...webhook, secret: SECRET }])).status).toBe(200);

    // Sent back without a word about signing: refused, and the signing stays.
    const bare = await put(jobId, [webhook, { url: `${receiver.url}/other`, events: ['failed'] }]);
    expect(bare.status).toBe(400);
    expect(bare.body.error).toBe(
      'webhooks.0: this webhook is signed; send "signed": true to keep its secret, "secret" to replace it, or "signed": false to stop signing',
    );
    // signed: true for a URL that has no secret stored.
    const unknown = await put(jobId, [{ url: `${receiver.url}/new`, events: ['failed'], signed: true }]);
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toBe('webhooks.0.signed: no secret is stored for this URL; send "secret"');
    const contradictory = await put(jobId, [{ ...webhook, secret: SECRET, signed: false }]);
    expect(contradictory.status).toBe(400);
    expect(contradictory.body.error).toBe('webhooks.0.signed: must not be false when a secret is given');
    expect((await service.request('GET', `/api/jobs/${jobId}/alerts`)).body.webhooks).toEqual([
      { ...webhook, signed: true },
    ]);

    // What GET shows, sent back as it is (with other changes), keeps the stored secret.
    const kept = await put(jobId, [{ ...webhook, events: ['failed', 'timeout'], signed: true }]);
    expect(kept.body.webhooks).toEqual([{ ...webhook, events: ['failed', 'timeout'], signed: true }]);
    await runOnce(jobId);
    await eventually(async () => receiver.requests.length >= 1);
    expect(verifyStandardWebhook(SECRET, receiver.requests[0]!.headers, receiver.requests[0]!.text)).toBe(
      true,
    );

    // A new secret replaces the old one.
    expect((await put(jobId, [{ ...webhook, secret: OTHER_SECRET }])).status).toBe(200);
    await runOnce(jobId);
    await eventually(async () => receiver.requests.length >= 2);
    expect(
      verifyStandardWebhook(OTHER_SECRET, receiver.requests[1]!.headers, receiver.requests[1]!.text),
    ).toBe(true);
    expect(verifyStandardWebhook(SECRET, receiver.requests[1]!.headers, receiver.requests[1]!.text)).toBe(
      false,
    );

    // signed: false stops signing, and says so.
    const unsigned = await put(jobId, [{ ...webhook, signed: false }]);
    expect(unsigned.body.webhooks).toEqual([webhook]);
    await runOnce(jobId);
    await eventually(async () => receiver.requests.length >= 3);
    expect(receiver.requests[2]!.headers['webhook-signature']).toBeUndefined();
    expect(receiver.requests[2]!.headers['webhook-id']).toBeUndefined();
  });

  it('lets the controller write secrets as given, and only when something changed', async () => {
    const jobId = await failingJob();
    const signed = {
      webhooks: [{ url: `${receiver.url}/sync`, events: ['failed' as const], secret: SECRET }],
      emails: [],
    };
    expect(await service.alerting.api.sync(jobId, signed)).toBe(true);
    const updatedAt = async () =>
      (await db.pool.query('SELECT updated_at FROM alert_configs WHERE job_id = $1', [jobId])).rows[0]
        .updated_at;
    const written = await updatedAt();
    expect(await service.alerting.api.sync(jobId, signed)).toBe(false);
    expect(await updatedAt()).toEqual(written);
    // The same configuration as GET shows it, with another secret: a change.
    const rotated = { ...signed, webhooks: [{ ...signed.webhooks[0]!, secret: OTHER_SECRET }] };
    expect(await service.alerting.api.sync(jobId, rotated)).toBe(true);
    await runOnce(jobId);
    await eventually(async () => receiver.requests.length >= 1);
    expect(
      verifyStandardWebhook(OTHER_SECRET, receiver.requests[0]!.headers, receiver.requests[0]!.text),
    ).toBe(true);
    // Without a secret the webhook is unsigned: the cluster's word is final.
    expect(
      await service.alerting.api.sync(jobId, {
        ...signed,
        webhooks: [{ url: `${receiver.url}/sync`, events: ['failed'] }],
      }),
    ).toBe(true);
    expect((await service.request('GET', `/api/jobs/${jobId}/alerts`)).body.webhooks).toEqual([
      { url: `${receiver.url}/sync`, events: ['failed'] },
    ]);
  });
});
