import {
  type MessageSummaryRow,
  SUMMARY_COLUMNS,
  toMessageSummary,
} from '../../src/mailbox/messages/messageSummary';
import { MAX_UID } from '../../src/mailbox/messages/messageSchemas';
import { startTestService, type TestService } from '../support/service';
import { MailboxClient } from './mailboxClient';

const SUMMARY_FIELDS = [
  'id',
  'uid',
  'message_id',
  'in_reply_to',
  'subject',
  'from_address',
  'from_name',
  'to_addresses',
  'date',
  'flags',
  'size',
  'has_attachments',
  'preview',
];

const ids = (list: { id: number }[]) => list.map((item) => item.id);

describe('label filters', () => {
  let service: TestService;
  let api: MailboxClient;
  /** Sets the label date of a link, so that orders can be stated exactly. */
  const labelAt = async (labelId: number, messageId: number, at: string) => {
    await api.label(labelId, messageId);
    await service.db.pool.query(
      'UPDATE mail_message_labels SET labeled_at = $3 WHERE label_id = $1 AND message_id = $2',
      [labelId, messageId, at],
    );
  };

  beforeAll(async () => {
    service = await startTestService();
    api = new MailboxClient(service);
  });
  afterAll(async () => {
    await service.stop();
  });

  describe('GET /api/labels/filter and /filter/count', () => {
    let work: number, urgent: number, other: number, m: number[];
    beforeAll(async () => {
      work = await api.createLabel('f-work');
      urgent = await api.createLabel('f-urgent');
      other = await api.createLabel('f-other');
      m = [];
      for (let i = 0; i < 6; i++) {
        m.push(
          await api.createMessage({
            identity_id: 10 + i,
            subject: `message ${i}`,
            flags: i % 2 === 0 ? ['\\Seen'] : null,
            text_body: `body ${i}`,
          }),
        );
      }
      // m0: work 09:00, urgent 12:00 -> latest 12:00
      await labelAt(work, m[0]!, '2024-01-01T09:00:00Z');
      await labelAt(urgent, m[0]!, '2024-01-01T12:00:00Z');
      // m1: urgent 10:00, work 11:00 -> latest 11:00; a later other label does not count
      await labelAt(urgent, m[1]!, '2024-01-01T10:00:00Z');
      await labelAt(work, m[1]!, '2024-01-01T11:00:00Z');
      await labelAt(other, m[1]!, '2024-01-01T23:00:00Z');
      // m2 and m3: both latest 08:00 -> tie broken by id, highest first
      await labelAt(work, m[2]!, '2024-01-01T08:00:00Z');
      await labelAt(urgent, m[2]!, '2024-01-01T07:00:00Z');
      await labelAt(work, m[3]!, '2024-01-01T08:00:00Z');
      await labelAt(urgent, m[3]!, '2024-01-01T08:00:00Z');
      // m4: only work; m5: only urgent
      await labelAt(work, m[4]!, '2024-01-01T13:00:00Z');
      await labelAt(urgent, m[5]!, '2024-01-01T14:00:00Z');
    });

    it('lists messages having ALL labels by latest label date, then by id, with identity_id', async () => {
      const { body } = await api.get(`/api/labels/filter?ids=${work},${urgent}`);
      expect(ids(body)).toEqual([m[0], m[1], m[3], m[2]]);
      expect(Object.keys(body[0]).sort()).toEqual([...SUMMARY_FIELDS, 'identity_id'].sort());
      expect(body[0]).toMatchObject({ id: m[0], identity_id: 10, subject: 'message 0', preview: 'body 0' });
    });

    it('lists one label by its own date', async () => {
      expect(ids((await api.get(`/api/labels/filter?ids=${work}`)).body)).toEqual([
        m[4],
        m[1],
        m[0],
        m[3],
        m[2],
      ]);
    });

    it('counts total and unread over messages having ALL labels', async () => {
      expect((await api.get(`/api/labels/filter/count?ids=${work},${urgent}`)).body).toEqual({
        total: 4,
        unread: 2,
      });
      expect((await api.get(`/api/labels/filter/count?ids=${work}`)).body).toEqual({ total: 5, unread: 2 });
      expect((await api.get(`/api/labels/filter/count?ids=${work},${urgent},${other}`)).body).toEqual({
        total: 1,
        unread: 1,
      });
    });

    it('pages with limit and offset', async () => {
      const page = async (query: string) =>
        ids((await api.get(`/api/labels/filter?ids=${work},${urgent}&${query}`)).body);
      expect(await page('limit=2')).toEqual([m[0], m[1]]);
      expect(await page('limit=2&offset=2')).toEqual([m[3], m[2]]);
      expect(await page('offset=3')).toEqual([m[2]]);
      expect(await page('offset=4')).toEqual([]);
    });

    it('applies the ids rule: trimmed entries, junk dropped, duplicates and repeats merged', async () => {
      const expected = [m[0], m[1], m[3], m[2]];
      for (const query of [
        `ids=%20${work}%20,${urgent}`,
        `ids=x,${work},-1,0,1.5,,${urgent},abc`,
        `ids=${work},${urgent},${work}`,
        `ids=${work}&ids=${urgent}`,
        `ids=00${work},${urgent}`,
      ]) {
        expect(ids((await api.get(`/api/labels/filter?${query}`)).body)).toEqual(expected);
      }
    });

    it('answers empty results for labels that do not exist', async () => {
      expect((await api.get(`/api/labels/filter?ids=${work},999999`)).body).toEqual([]);
      expect((await api.get('/api/labels/filter/count?ids=999999')).body).toEqual({ total: 0, unread: 0 });
      expect((await api.get(`/api/labels/filter?ids=${work},99999999999`)).body).toEqual([]);
      expect((await api.get(`/api/labels/filter/count?ids=99999999999`)).body).toEqual({
        total: 0,
        unread: 0,
      });
      expect((await api.get(`/api/labels/filter/related?ids=99999999999`)).body).toEqual([]);
    });

    it('follows labels taken off and put back on', async () => {
      await api.expect(200, 'DELETE', `/api/labels/${urgent}/messages/${m[0]}`);
      expect(ids((await api.get(`/api/labels/filter?ids=${work},${urgent}`)).body)).toEqual([
        m[1],
        m[3],
        m[2],
      ]);
      expect((await api.get(`/api/labels/filter/count?ids=${work},${urgent}`)).body).toEqual({
        total: 3,
        unread: 2,
      });
      await labelAt(urgent, m[0]!, '2024-01-01T12:00:00Z');
      expect((await api.get(`/api/labels/filter/count?ids=${work},${urgent}`)).body).toEqual({
        total: 4,
        unread: 2,
      });
    });
  });

  describe('GET /api/labels/:labelId/messages', () => {
    it('lists the label newest label date first, without identity_id, and pages', async () => {
      const label = await api.createLabel('lm-list');
      const messages: number[] = [];
      for (let i = 0; i < 55; i++) messages.push(await api.createMessage({ subject: `lm ${i}` }));
      for (const message of messages) await api.label(label, message);
      const first = (await api.get(`/api/labels/${label}/messages`)).body;
      expect(first).toHaveLength(50);
      expect(ids(first)).toEqual([...messages].reverse().slice(0, 50));
      expect(Object.keys(first[0]).sort()).toEqual([...SUMMARY_FIELDS].sort());
      expect(ids((await api.get(`/api/labels/${label}/messages?limit=10&offset=50`)).body)).toEqual(
        [...messages].reverse().slice(50),
      );
      expect((await api.get(`/api/labels/${label}/messages?limit=500`)).body).toHaveLength(55);
      // The filter endpoint with the same single label answers the same messages (plus identity_id).
      expect(ids((await api.get(`/api/labels/filter?ids=${label}&limit=500`)).body)).toEqual(
        [...messages].reverse(),
      );
    });

    it('orders by the date of this label, not of others', async () => {
      const label = await api.createLabel('lm-order');
      const later = await api.createLabel('lm-later');
      const a = await api.createMessage();
      const b = await api.createMessage();
      await labelAt(label, a, '2024-03-01T10:00:00Z');
      await labelAt(label, b, '2024-03-01T09:00:00Z');
      await labelAt(later, b, '2024-03-02T00:00:00Z');
      expect(ids((await api.get(`/api/labels/${label}/messages`)).body)).toEqual([a, b]);
    });

    it('answers an empty list for an unknown label', async () => {
      expect((await api.get('/api/labels/999999/messages')).body).toEqual([]);
    });
  });

  describe('related labels', () => {
    let base: number, names: Record<string, number>;
    beforeAll(async () => {
      base = await api.createLabel('r-base');
      names = {};
      // co_count with base: r-a 3, r-b 3, r-c 2, r-d 1, r-e 1, r-f 1, r-g 1; r-none 0
      for (const name of ['r-g', 'r-f', 'r-e', 'r-d', 'r-c', 'r-b', 'r-a', 'r-none']) {
        names[name] = await api.createLabel(name, { color: name === 'r-a' ? 'red' : null });
      }
      const share = { 'r-a': 3, 'r-b': 3, 'r-c': 2, 'r-d': 1, 'r-e': 1, 'r-f': 1, 'r-g': 1 };
      const messages: number[] = [];
      for (let i = 0; i < 4; i++) messages.push(await api.createMessage());
      for (const message of messages) await api.label(base, message);
      for (const [name, count] of Object.entries(share)) {
        for (let i = 0; i < count; i++) await api.label(names[name]!, messages[i]!);
      }
      const outside = await api.createMessage();
      await api.label(names['r-none']!, outside);
      await api.label(names['r-a']!, outside);
    });

    it('lists other labels by co_count, then name, 5 by default', async () => {
      const { body } = await api.get(`/api/labels/${base}/related`);
      expect(body).toEqual([
        { id: names['r-a'], name: 'r-a', color: 'red', icon: null, source: 'user', co_count: 3 },
        { id: names['r-b'], name: 'r-b', color: null, icon: null, source: 'user', co_count: 3 },
        { id: names['r-c'], name: 'r-c', color: null, icon: null, source: 'user', co_count: 2 },
        { id: names['r-d'], name: 'r-d', color: null, icon: null, source: 'user', co_count: 1 },
        { id: names['r-e'], name: 'r-e', color: null, icon: null, source: 'user', co_count: 1 },
      ]);
      expect(ids((await api.get(`/api/labels/filter/related?ids=${base}`)).body)).toEqual(ids(body));
    });

    it('applies the limit rule', async () => {
      const count = async (query: string) =>
        (await api.get(`/api/labels/${base}/related?${query}`)).body.length;
      expect(await count('limit=2')).toBe(2);
      expect(await count('limit=0')).toBe(5);
      expect(await count('limit=abc')).toBe(5);
      expect(await count('limit=')).toBe(5);
      expect(await count('limit=-4')).toBe(1);
      expect(await count('limit=100')).toBe(7);
      expect(await count('limit=7.9')).toBe(7);
      expect(await count('limit=0.5')).toBe(1);
      const filterCount = async (query: string) =>
        (await api.get(`/api/labels/filter/related?ids=${base}&${query}`)).body.length;
      expect(await filterCount('limit=3')).toBe(3);
      expect(await filterCount('limit=zero')).toBe(5);
      expect(await filterCount('limit=0.9')).toBe(1);
    });

    it('relates several labels: labels not listed, on messages having ALL of them', async () => {
      const { body } = await api.get(`/api/labels/filter/related?ids=${base},${names['r-c']}`);
      expect(body.map((label: { name: string; co_count: number }) => [label.name, label.co_count])).toEqual([
        ['r-a', 2],
        ['r-b', 2],
        ['r-d', 1],
        ['r-e', 1],
        ['r-f', 1],
      ]);
    });

    it('answers an empty list for a label without messages or an unknown one', async () => {
      const lonely = await api.createLabel('r-lonely');
      expect((await api.get(`/api/labels/${lonely}/related`)).body).toEqual([]);
      expect((await api.get('/api/labels/999999/related')).body).toEqual([]);
    });
  });

  describe('message lists, written as JSON by the database', () => {
    /** Values where a JSON writer could differ: escapes, surrogate pairs, precision, extremes. */
    const awkward = [
      {
        uid: MAX_UID,
        subject: 'quotes " and \\ backslash, tab\t newline\n bell\u0007 del\u007f sep\u2028 end',
        from_name: 'Zoë 🦊 𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
        from_address: '"odd"@example.com',
        to_addresses: null,
        date: '2024-02-29T23:59:59.999999+05:30',
        flags: ['\\Seen', '"quoted"', 'ü'],
        size: 0,
        has_attachments: true,
        text_body: '🦊'.repeat(300),
      },
      { uid: 1, date: '0001-01-01T00:00:00Z', size: 2147483647, flags: [], text_body: '' },
      { date: '9999-12-31T22:59:59.5-01:00', message_id: '<a@b>', in_reply_to: '<c@d>' },
      { date: '2024-06-01T12:00:00.123Z' },
      {},
    ];

    it('answers what JSON.stringify of the summaries writes, byte for byte', async () => {
      const label = await api.createLabel('json-awkward');
      const created: number[] = [];
      for (const [index, fields] of awkward.entries()) {
        const id = await api.createMessage({ identity_id: 40 + index, ...fields });
        await labelAt(label, id, `2024-03-0${index + 1}T00:00:00Z`);
        created.push(id);
      }
      const { rows } = await service.db.pool.query<MessageSummaryRow>(
        `SELECT ${SUMMARY_COLUMNS} FROM mail_messages m WHERE m.id = ANY ($1::int[]) ORDER BY m.id DESC`,
        [created],
      );
      const summaries = rows.map(toMessageSummary);
      const withIdentity = rows.map((row, i) => {
        const { id, ...rest } = summaries[i]!;
        return { id, identity_id: row.identity_id, ...rest };
      });

      const list = await api.get(`/api/labels/${label}/messages`);
      expect(list.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(list.text).toBe(JSON.stringify(summaries));
      expect((await api.get(`/api/labels/filter?ids=${label}`)).text).toBe(JSON.stringify(withIdentity));

      const other = await api.createLabel('json-awkward-2');
      for (const id of created) await labelAt(other, id, '2024-01-01T00:00:00Z');
      expect((await api.get(`/api/labels/filter?ids=${label},${other}`)).text).toBe(
        JSON.stringify(withIdentity),
      );
    });

    it('answers an empty array as JSON when nothing matches', async () => {
      const empty = await api.createLabel('json-empty');
      for (const path of [
        `/api/labels/${empty}/messages`,
        `/api/labels/filter?ids=${empty}`,
        `/api/labels/filter?ids=${empty},999999`,
        '/api/labels/filter?ids=99999999999',
      ]) {
        const response = await api.get(path);
        expect([path, response.headers.get('content-type'), response.text]).toEqual([
          path,
          'application/json; charset=utf-8',
          '[]',
        ]);
      }
    });
  });
});
