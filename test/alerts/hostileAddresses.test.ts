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

/**
 * IPv4 addresses carried inside IPv6 ones: IPv4-compatible (::/96), IPv4-mapped (::ffff:0:0/96),
 * IPv4-translated (::ffff:0:0:0/96), NAT64 (64:ff9b::/96), 6to4 (2002::/16, the IPv4 address in
 * bits 16–47) and Teredo (2001::/32, the client's address inverted in the last 32 bits). Each is
 * checked as the IPv4 address it carries.
 */
describe('SERVICE_WEBHOOK_DENY_CIDRS against IPv4 addresses written inside IPv6 ones', () => {
  const EMBEDDED_DENY = '127.0.0.0/8,::1/128,169.254.0.0/16';
  const denied = [
    '[::127.0.0.1]',
    '[::7f00:1]',
    '[::ffff:0:7f00:1]',
    '[::ffff:0:127.0.0.1]',
    '[64:ff9b::7f00:1]',
    '[64:ff9b::127.0.0.1]',
    '[::169.254.169.254]',
    '[::ffff:0:a9fe:a9fe]',
    '[64:ff9b::a9fe:a9fe]',
    '[0:0:0:0:0:ffff:a9fe:a9fe]',
    '[2002:7f00:1::]',
    '[2002:a9fe:a9fe::1]',
    '[2002:a9fe:a9fe:1:2:3:4:5]',
    '[2001:0:4136:e378:8000:63bf:80ff:fffe]',
  ];
  const allowed = ['[2002:808:808::1]', '[64:ff9b::808:808]', '[::ffff:0:808:808]', '[2001:db8::7f00:1]'];
  const policy = new WebhookAddressPolicy(EMBEDDED_DENY.split(','));
  let receiver: Receiver;
  let service: TestService;
  let jobId: number;

  beforeAll(async () => {
    receiver = await Receiver.start();
    service = await startTestService({ env: { SERVICE_WEBHOOK_DENY_CIDRS: EMBEDDED_DENY } });
    jobId = (await service.request('POST', '/api/jobs', { name: 'j', schedule: '@daily', command: 'true' }))
      .body.id;
  });
  afterAll(async () => {
    await service.stop();
    await receiver.close();
  });

  const urlFor = (host: string) => `http://${host}:${receiver.port}/hook`;

  it.each(denied)('PUT alerts refuses %s with 400', async (host) => {
    const put = await service.request('PUT', `/api/jobs/${jobId}/alerts`, {
      webhooks: [{ url: urlFor(host), events: ['failed'] }],
    });
    expect(put.status).toBe(400);
    expect(put.body.error).toMatch(
      /^webhooks\.0\.url: .* is in a range that SERVICE_WEBHOOK_DENY_CIDRS denies$/,
    );
  });

  it.each(denied)('delivery to %s is refused before any connection', async (host) => {
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

  it.each(allowed)('still allows %s, which carries an address outside the list', async (host) => {
    const put = await service.request('PUT', `/api/jobs/${jobId}/alerts`, {
      webhooks: [{ url: urlFor(host), events: ['failed'] }],
    });
    expect(put.status).toBe(200);
  });

  it('checks a connection’s remote address the same way', () => {
    expect(policy.deniedRemote('::ffff:0:7f00:1')).toBe('::ffff:0:7f00:1');
    expect(policy.deniedRemote('2002:a9fe:a9fe::')).toBe('2002:a9fe:a9fe::');
    expect(policy.deniedRemote('2002:808:808::')).toBeNull();
  });
});
