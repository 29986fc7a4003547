import { startTestService, type TestService } from '../support/service';
import { MailboxClient } from './mailboxClient';

const RFC822 = { 'content-type': 'message/rfc822' };

const source = (headers: string[], body: string) =>
  [
    'From: ann@example.com',
    'To: bob@example.com',
    'Date: Mon, 6 May 2024 10:00:00 +0200',
    'MIME-Version: 1.0',
    ...headers,
    '',
    body,
    '',
  ].join('\r\n');

const multipart = (type: string, parts: [string, string][]) =>
  source(
    [`Content-Type: multipart/${type}; boundary="B"`],
    parts.map(([contentType, body]) => `--B\r\nContent-Type: ${contentType}\r\n\r\n${body}`).join('\r\n') +
      '\r\n--B--',
  );

/**
 * Messages whose HTML would hold the service (issue 38): a body of 200,000 nested `<div>`s (2.2 MB,
 * far under the 25 MiB limit) took 29 s to be refused, the event loop held all along. Its text
 * comes from our linear conversion, in steps (htmlText.ts), never from mailparser's html-to-text.
 */
describe('messages whose HTML nests deep', () => {
  let service: TestService;
  let api: MailboxClient;
  beforeAll(async () => {
    service = await startTestService();
    api = new MailboxClient(service);
  });
  afterAll(async () => {
    await service.stop();
  });

  const textOf = async (message: string) => {
    const created = await api.expect(201, 'POST', '/api/messages?identity_id=1', message, RFC822);
    return (await api.get(`/api/messages/${created.body.id}`)).body.text_body as string | null;
  };

  it('stores a message of 200,000 nested <div>s with the text they hold', async () => {
    const depth = 200_000;
    const html = '<div>'.repeat(depth) + 'deep inside' + '</div>'.repeat(depth);
    const message = source(['Subject: deep', 'Content-Type: text/html; charset=utf-8'], html);
    expect(Buffer.byteLength(message)).toBeGreaterThan(2_200_000);
    expect(await textOf(message)).toBe('deep inside');
  });

  it('takes the plain part of a message that has one, and the HTML’s text when it is blank', async () => {
    const html = '<p>From <b>HTML</b></p>';
    expect(
      await textOf(
        multipart('alternative', [
          ['text/plain; charset=utf-8', 'From plain'],
          ['text/html; charset=utf-8', html],
        ]),
      ),
    ).toBe('From plain');
    expect(await textOf(multipart('mixed', [['text/html; charset=utf-8', html]]))).toBe('From HTML');
    expect(
      await textOf(
        multipart('mixed', [
          ['text/plain; charset=utf-8', ' '],
          ['text/html; charset=utf-8', html],
        ]),
      ),
    ).toBe('From HTML');
  });
});
