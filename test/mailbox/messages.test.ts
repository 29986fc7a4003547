import { startTestService, type TestService } from '../support/service';
import { MailboxClient } from './mailboxClient';

const RFC822 = { 'content-type': 'message/rfc822' };

const plainSource = [
  'From: "Ann Example" <ann@example.com>',
  'To: bob@example.com, "Carl C." <carl@example.com>',
  'Cc: dora@example.com',
  'Subject: =?UTF-8?B?w4ljaMOpYW5jZSDwn5OF?=',
  'Date: Mon, 6 May 2024 10:00:00 +0200',
  'Message-ID: <m1@example.com>',
  'In-Reply-To: <m0@example.com>',
  'Content-Type: text/plain; charset=utf-8',
  '',
  'Bonjour Bob,',
  'la réunion est à 10 h.',
  '',
].join('\r\n');

const multipartSource = [
  'From: ann@example.com',
  'To: bob@example.com',
  'Subject: With attachment',
  'Date: Tue, 7 May 2024 08:00:00 +0000',
  'MIME-Version: 1.0',
  'Content-Type: multipart/mixed; boundary="XYZ"',
  '',
  '--XYZ',
  'Content-Type: text/html; charset=utf-8',
  '',
  '<p>Only <b>HTML</b> here</p>',
  '--XYZ',
  'Content-Type: application/pdf; name="a.pdf"',
  'Content-Disposition: attachment; filename="a.pdf"',
  'Content-Transfer-Encoding: base64',
  '',
  'JVBERi0xLjQK',
  '--XYZ--',
  '',
].join('\r\n');

describe('messages API', () => {
  let service: TestService;
  let api: MailboxClient;
  beforeAll(async () => {
    service = await startTestService();
    api = new MailboxClient(service);
  });
  afterAll(async () => {
    await service.stop();
  });

  describe('POST /api/messages with JSON', () => {
    it('stores every field and reads it back with its body and labels', async () => {
      const fields = {
        identity_id: 3,
        uid: 4294967295,
        message_id: '<abc@example.com>',
        in_reply_to: '<prev@example.com>',
        subject: 'Hello',
        from_address: 'ann@example.com',
        from_name: 'Ann',
        to_addresses: 'bob@example.com',
        date: '2024-05-06T10:00:00.123+02:00',
        flags: ['\\Seen', '$Forwarded'],
        size: 2048,
        has_attachments: true,
        text_body: 'The body.',
      };
      const created = await api.expect(201, 'POST', '/api/messages', fields);
      expect(created.body).toEqual({ id: expect.any(Number) });
      const { body } = await api.get(`/api/messages/${created.body.id}`);
      expect(body).toEqual({
        id: created.body.id,
        ...fields,
        date: '2024-05-06T08:00:00.123Z',
        preview: 'The body.',
        created_at: expect.any(String),
        labels: [],
      });
    });

    it('defaults omitted fields to null (has_attachments to false)', async () => {
      const id = await api.createMessage({ identity_id: 4 });
      expect((await api.get(`/api/messages/${id}`)).body).toMatchObject({
        identity_id: 4,
        uid: null,
        message_id: null,
        subject: null,
        date: null,
        flags: null,
        size: null,
        has_attachments: false,
        text_body: null,
        preview: null,
      });
    });

    it('rejects invalid fields with the field named and writes nothing', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{}, 'identity_id is required'],
        [{ identity_id: 0 }, 'identity_id is required'],
        [{ identity_id: -2 }, 'Invalid identity_id: must be a positive integer'],
        [{ identity_id: 1, uid: 0 }, 'uid: must be an integer from 1 to 4294967295 or null'],
        [{ identity_id: 1, uid: 4294967296 }, 'uid: must be an integer from 1 to 4294967295 or null'],
        [{ identity_id: 1, subject: 1 }, 'subject: must be a string or null'],
        [{ identity_id: 1, flags: '\\Seen' }, 'flags: must be an array of strings or null'],
        [{ identity_id: 1, flags: [1] }, 'flags.0: must be strings'],
        [
          { identity_id: 1, flags: ['two words'] },
          'flags.0: must be non-empty strings of at most 100 characters, no spaces',
        ],
        [
          { identity_id: 1, date: 'yesterday' },
          'date: must be an ISO 8601 timestamp with a time zone, e.g. 2024-05-01T09:30:00Z',
        ],
        [
          { identity_id: 1, date: '2024-05-06T10:00:00' },
          'date: must be an ISO 8601 timestamp with a time zone, e.g. 2024-05-01T09:30:00Z',
        ],
        [
          { identity_id: 1, date: '2023-02-29T10:00:00Z' },
          'date: must be an ISO 8601 timestamp with a time zone, e.g. 2024-05-01T09:30:00Z',
        ],
        [{ identity_id: 1, date: '0000-01-01T00:00:00Z' }, 'date: must be in the years 1 to 9999'],
        [{ identity_id: 1, date: '0001-01-01T00:00:00+05:00' }, 'date: must be in the years 1 to 9999'],
        [{ identity_id: 1, date: '9999-12-31T23:30:00-01:00' }, 'date: must be in the years 1 to 9999'],
        [{ identity_id: 1, size: -1 }, 'size: must be a non-negative integer or null'],
        [{ identity_id: 1, has_attachments: 'yes' }, 'has_attachments: must be true or false'],
        [{ identity_id: 1, text_body: 'a\u0000b' }, 'text_body: must not contain NUL characters'],
      ];
      const before = (await service.db.pool.query('SELECT count(*)::int AS n FROM mail_messages')).rows[0].n;
      for (const [body, error] of cases) {
        expect((await api.expect(400, 'POST', '/api/messages', body)).body).toEqual({ error });
      }
      expect((await service.db.pool.query('SELECT count(*)::int AS n FROM mail_messages')).rows[0].n).toBe(
        before,
      );
    });

    it('accepts a leap day', async () => {
      await api.createMessage({ date: '2024-02-29T23:59:59Z' });
    });

    it('rejects a JSON body over 1 MiB with 413', async () => {
      const response = await api.expect(413, 'POST', '/api/messages', {
        identity_id: 1,
        text_body: 'x'.repeat(1024 * 1024),
      });
      expect(response.body.error).toMatch(/larger than the limit/);
    });

    it('answers 415 for a body of another type', async () => {
      const response = await api.expect(415, 'POST', '/api/messages', 'hello', {
        'content-type': 'text/plain',
      });
      expect(response.body).toEqual({ error: 'Content-Type must be application/json or message/rfc822' });
    });

    it('reads a request without a body as an empty JSON object', async () => {
      expect((await api.expect(400, 'POST', '/api/messages')).body).toEqual({
        error: 'identity_id is required',
      });
    });
  });

  describe('POST /api/messages with an RFC 822 source', () => {
    it('parses headers and the text body', async () => {
      const created = await api.expect(201, 'POST', '/api/messages?identity_id=5', plainSource, RFC822);
      const { body } = await api.get(`/api/messages/${created.body.id}`);
      expect(body).toMatchObject({
        identity_id: 5,
        uid: null,
        message_id: '<m1@example.com>',
        in_reply_to: '<m0@example.com>',
        subject: 'Échéance 📅',
        from_address: 'ann@example.com',
        from_name: 'Ann Example',
        to_addresses: 'bob@example.com, "Carl C." <carl@example.com>',
        date: '2024-05-06T08:00:00.000Z',
        flags: null,
        size: Buffer.byteLength(plainSource),
        has_attachments: false,
        text_body: 'Bonjour Bob,\nla réunion est à 10 h.\n',
        preview: 'Bonjour Bob,\nla réunion est à 10 h.\n',
        labels: [],
      });
    });

    it('takes uid and flags from the query, and derives text from HTML', async () => {
      const created = await api.expect(
        201,
        'POST',
        '/api/messages?identity_id=5&uid=77&flags=%5CSeen,%20%5CFlagged',
        multipartSource,
        RFC822,
      );
      const { body } = await api.get(`/api/messages/${created.body.id}`);
      expect(body).toMatchObject({
        uid: 77,
        flags: ['\\Seen', '\\Flagged'],
        has_attachments: true,
        subject: 'With attachment',
      });
      expect(body.text_body).toBe('Only HTML here');
    });

    it('stores null for a missing or unreadable Date header rather than inventing one', async () => {
      for (const header of ['', 'Date: not a date\r\n']) {
        const source = `From: a@example.com\r\nSubject: no date\r\n${header}\r\nbody\r\n`;
        const created = await api.expect(201, 'POST', '/api/messages?identity_id=1', source, RFC822);
        expect((await api.get(`/api/messages/${created.body.id}`)).body.date).toBeNull();
      }
    });

    it('keeps NUL characters that a decoded part may contain, shown as ␀', async () => {
      const source =
        'Subject: nul\r\nContent-Transfer-Encoding: base64\r\n\r\n' +
        Buffer.from('a\u0000b').toString('base64');
      const created = await api.expect(201, 'POST', '/api/messages?identity_id=1', source, RFC822);
      expect((await api.get(`/api/messages/${created.body.id}`)).body.text_body).toBe('a\u2400b');
    });

    it('validates the query and the body', async () => {
      expect((await api.expect(400, 'POST', '/api/messages', plainSource, RFC822)).body).toEqual({
        error: 'identity_id query parameter is required',
      });
      expect(
        (await api.expect(400, 'POST', '/api/messages?identity_id=x', plainSource, RFC822)).body,
      ).toEqual({
        error: 'Invalid identity_id: must be a positive integer',
      });
      expect(
        (await api.expect(400, 'POST', '/api/messages?identity_id=1&uid=0', plainSource, RFC822)).body,
      ).toEqual({
        error: 'uid: must be an integer from 1 to 4294967295 or null',
      });
      expect((await api.expect(400, 'POST', '/api/messages?identity_id=1', '', RFC822)).body).toEqual({
        error: 'request body must be an RFC 822 message',
      });
    });

    it('rejects a source over 25 MiB with 413', async () => {
      const source = 'Subject: big\r\n\r\n' + 'x'.repeat(25 * 1024 * 1024);
      const response = await api.expect(413, 'POST', '/api/messages?identity_id=1', source, RFC822);
      expect(response.body.error).toMatch(/larger than the limit/);
    });
  });

  describe('GET /api/messages/:id', () => {
    it('answers 404 for an unknown message and 400 for a non-integer id', async () => {
      expect((await api.expect(404, 'GET', '/api/messages/999999')).body).toEqual({
        error: 'Message not found',
      });
      expect((await api.expect(400, 'GET', '/api/messages/abc')).body).toEqual({
        error: 'id: must be a positive integer',
      });
    });
  });

  describe('putting labels on and taking them off', () => {
    it('puts a label on at the time of the PUT; a second PUT keeps the first date', async () => {
      const label = await api.createLabel('On');
      const message = await api.createMessage();
      const before = Date.now();
      expect((await api.expect(200, 'PUT', `/api/labels/${label}/messages/${message}`)).body).toEqual({
        ok: true,
      });
      const first = (await api.get(`/api/messages/${message}`)).body.labels;
      expect(first).toEqual([
        { id: label, name: 'On', color: null, icon: null, source: 'user', labeled_at: expect.any(String) },
      ]);
      expect(Math.abs(Date.parse(first[0].labeled_at) - before)).toBeLessThan(60_000);
      await new Promise((resolve) => setTimeout(resolve, 20));
      await api.label(label, message);
      expect((await api.get(`/api/messages/${message}`)).body.labels).toEqual(first);
    });

    it('takes a label off, and taking it off again is not an error', async () => {
      const label = await api.createLabel('Off');
      const message = await api.createMessage();
      await api.label(label, message);
      expect((await api.expect(200, 'DELETE', `/api/labels/${label}/messages/${message}`)).body).toEqual({
        ok: true,
      });
      expect((await api.get(`/api/messages/${message}`)).body.labels).toEqual([]);
      await api.expect(200, 'DELETE', `/api/labels/${label}/messages/${message}`);
      expect((await api.get(`/api/labels/${label}/messages`)).body).toEqual([]);
    });

    it('answers 404 when the label or the message disappears between the check and the write', async () => {
      // A trigger plays the concurrent request: it deletes one end just before the link is written.
      const pool = service.db.pool;
      for (const [table, expected] of [
        ['mail_labels', 'Label not found'],
        ['mail_messages', 'Message not found'],
      ] as const) {
        const label = await api.createLabel(`race-${table}`);
        const message = await api.createMessage();
        const column = table === 'mail_labels' ? 'label_id' : 'message_id';
        await pool.query(`CREATE FUNCTION race() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN DELETE FROM ${table} WHERE id = NEW.${column}; RETURN NEW; END $$`);
        await pool.query(
          'CREATE TRIGGER race BEFORE INSERT ON mail_message_labels FOR EACH ROW EXECUTE FUNCTION race()',
        );
        try {
          const response = await api.expect(404, 'PUT', `/api/labels/${label}/messages/${message}`);
          expect(response.body).toEqual({ error: expected });
        } finally {
          await pool.query('DROP TRIGGER race ON mail_message_labels');
          await pool.query('DROP FUNCTION race()');
        }
      }
    });

    it('answers 404 for an unknown label or message, and 400 for non-integer ids', async () => {
      const label = await api.createLabel('Ends');
      const message = await api.createMessage();
      for (const method of ['PUT', 'DELETE']) {
        expect((await api.expect(404, method, `/api/labels/999999/messages/${message}`)).body).toEqual({
          error: 'Label not found',
        });
        expect((await api.expect(404, method, `/api/labels/${label}/messages/999999`)).body).toEqual({
          error: 'Message not found',
        });
        expect((await api.expect(400, method, `/api/labels/x/messages/${message}`)).body).toEqual({
          error: 'labelId: must be a positive integer',
        });
        expect((await api.expect(400, method, `/api/labels/${label}/messages/1.5`)).body).toEqual({
          error: 'messageId: must be a positive integer',
        });
      }
      expect((await api.get(`/api/labels/${label}/messages`)).body).toEqual([]);
    });
  });
});
