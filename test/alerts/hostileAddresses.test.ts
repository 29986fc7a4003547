import { lookup } from 'node:dns';
import { DENIED_ADDRESS, WebhookAddressPolicy } from '../../src/alerts/addressPolicy';
import { guardedAgents, post } from '../../src/alerts/httpPost';
import { WebhookSender } from '../../src/alerts/webhookSender';
import type { Database } from '../../src/store/database';
import { createTestDatabase } from '../support/database';
import { startTestService, type TestService } from '../support/service';
import { Receiver } from './support/receiver';

const DENY = '127.0.0.0/8, ::1/128';

/** Every way of writing "this host" that a URL accepts, each reaching a listener on 127.0.0.1. */
const spellings = [
  '127.0.0.1',
  '2130706433',
  '0x7f000001',
  '127.1',
  '0177.0.0.1',
  '017700000001',
  '[::ffff:127.0.0.1]',
  '[::ffff:7f00:1]',
  '0',
  '0.0.0.0',
  '[::]',
  '[::ffff:0.0.0.0]',
  'localhost',
];

describe('SERVICE_WEBHOOK_DENY_CIDRS against every spelling of loopback', () => {
  let receiver: Receiver;
  let db: Database;
  let service: TestService;
  let jobId: number;
  const policy = new WebhookAddressPolicy(DENY.split(',').map((entry) => entry.trim()));

  beforeAll(async () => {
    receiver = await Receiver.start();
    db = await createTestDatabase();
    service = await startTestService({ db, env: { SERVICE_WEBHOOK_DENY_CIDRS: DENY } });
    jobId = (await service.request('POST', '/api/jobs', { name: 'j', schedule: '@daily', command: 'true' }))
      .body.id;
  });
  afterAll(async () => {
    await service.stop();
    await db.close();
    await receiver.close();
  });

  const urlFor = (host: string) => `http://${host}:${receiver.port}/hook`;

  it('the listener on 127.0.0.1 is reachable without a deny list (the spellings are real)', async () => {
    const open = new WebhookSender({ policy: new WebhookAddressPolicy([]), userAgent: 'test' });
    try {
      const outcome = await open.send(urlFor('0x7f000001'), {}, {}, new AbortController().signal);
      expect(outcome).toEqual({ status: 'delivered' });
    } finally {
      open.close();
    }
    receiver.requests.length = 0;
  });

  it.each(spellings)('PUT alerts refuses %s with 400', async (host) => {
    const put = await service.request('PUT', `/api/jobs/${jobId}/alerts`, {
      webhooks: [{ url: urlFor(host), events: ['failed'] }],
    });
    expect(put.status).toBe(400);
    expect(put.body.error).toMatch(
      /^webhooks\.0\.url: .* is in a range that SERVICE_WEBHOOK_DENY_CIDRS denies$/,
    );
  });

  it.each(spellings)('delivery to %s is refused and nothing reaches the listener', async (host) => {
    const sender = new WebhookSender({ policy, userAgent: 'test' });
    try {
      const outcome = await sender.send(urlFor(host), { x: 1 }, {}, new AbortController().signal);
      expect(outcome).toMatchObject({
        status: 'rejected',
        error: expect.stringMatching(/SERVICE_WEBHOOK_DENY_CIDRS/),
      });
    } finally {
      sender.close();
    }
    expect(receiver.requests).toEqual([]);
  });

  it('refuses a connection that reached a denied address past the checks, before sending a byte', async () => {
    // The system lookup rather than the guarded one, and no literal check: only the socket's
    // remote address is left to stop it.
    const agents = guardedAgents((remote) =>
      policy.deniedRemote(remote)
        ? Object.assign(new Error(`denied ${remote}`), { code: DENIED_ADDRESS })
        : null,
    );
    try {
      for (const host of ['127.0.0.1', 'localhost', '0']) {
        await expect(
          post(new URL(urlFor(host)), '{}', {
            headers: {},
            signal: new AbortController().signal,
            lookup,
            readLimit: 1024,
            agents,
          }),
        ).rejects.toMatchObject({ code: DENIED_ADDRESS });
      }
    } finally {
      agents.http.destroy();
      agents.https.destroy();
    }
    expect(receiver.requests).toEqual([]);
  });
});
