import fc from 'fast-check';
import type { Pool } from 'pg';
import { countFiltered, relatedLabels } from '../../src/mailbox/filters/filterStore';
import { startTestService, type TestService } from '../support/service';
import { ENUMERATE_ONLY, filteredIds, naiveFilter, THRESHOLD_ONLY } from './filterOracle';

/**
 * The label and unread bitmaps are derived data kept by triggers, and the filters read them with
 * two plans. These tests hold both to the plain relational answer, through random data that
 * crosses chunk boundaries (32768 message ids) and random writes of every kind.
 */

async function naiveCount(pool: Pool, ids: number[]) {
  const { rows } = await pool.query(
    `SELECT count(*)::int AS total, count(*) FILTER (WHERE m.unread)::int AS unread
     FROM mail_messages m WHERE m.id IN (
       SELECT message_id FROM mail_message_labels WHERE label_id = ANY ($1::int[])
       GROUP BY message_id HAVING count(*) = cardinality($1::int[]))`,
    [ids],
  );
  return rows[0];
}

async function naiveRelated(pool: Pool, ids: number[], limit: number) {
  const { rows } = await pool.query(
    `WITH matching AS (
       SELECT message_id FROM mail_message_labels WHERE label_id = ANY ($1::int[])
       GROUP BY message_id HAVING count(*) = cardinality($1::int[]))
     SELECT l.id, l.name, l.color, l.icon, l.source, count(*)::int AS co_count
     FROM matching JOIN mail_message_labels ml USING (message_id) JOIN mail_labels l ON l.id = ml.label_id
     WHERE ml.label_id <> ALL ($1::int[])
     GROUP BY l.id ORDER BY co_count DESC, lower(l.name) COLLATE "C", l.name COLLATE "C" LIMIT $2`,
    [ids, limit],
  );
  return rows;
}

/** The bitmaps hold exactly the links and the unread messages, bit for bit. */
async function expectBitmapsExact(pool: Pool): Promise<void> {
  const difference = async (a: string, b: string) =>
    (await pool.query(`(${a} EXCEPT ${b}) UNION ALL (${b} EXCEPT ${a})`)).rows;
  const fromLabelBits =
    'SELECT b.label_id, b.chunk * 32768 + p AS message_id FROM mail_label_bits b, mail_bit_positions(b.bits) p';
  expect(await difference(fromLabelBits, 'SELECT label_id, message_id FROM mail_message_labels')).toEqual([]);
  const fromUnreadBits =
    'SELECT u.chunk * 32768 + p AS id FROM mail_unread_bits u, mail_bit_positions(u.bits) p';
  expect(await difference(fromUnreadBits, 'SELECT id FROM mail_messages WHERE unread')).toEqual([]);
}

describe('label bitmaps and the filter plans', () => {
  let service: TestService;
  let pool: Pool;
  let labelIds: number[];
  let messageIds: number[];

  beforeAll(async () => {
    service = await startTestService();
    pool = service.db.pool;
    labelIds = [];
    for (const name of ['b-one', 'b-two', 'b-three', 'b-four', 'b-five', 'b-six']) {
      const { rows } = await pool.query('INSERT INTO mail_labels (name) VALUES ($1) RETURNING id', [name]);
      labelIds.push(rows[0].id);
    }
    // Ids on both sides of chunk boundaries, a spread over seven chunks, and the largest integer.
    const boundaries = [1, 32766, 32767, 32768, 32769, 65535, 65536, 98303, 98304, 2147483647];
    const spread = fc.sample(fc.integer({ min: 2, max: 229375 }), { numRuns: 400, seed: 42 });
    messageIds = [...new Set([...boundaries, ...spread])].sort((a, b) => a - b);
    await pool.query(
      String.raw`INSERT INTO mail_messages (id, identity_id, subject, flags)
       SELECT id, 1 + id % 3, 'm' || id, CASE id % 3 WHEN 0 THEN NULL WHEN 1 THEN ARRAY['\Seen'] ELSE ARRAY['\Flagged'] END
       FROM unnest($1::int[]) id`,
      [messageIds],
    );
    // Label dates from a handful of instants, so that ties (within and across messages) are common.
    await pool.query(
      `INSERT INTO mail_message_labels (message_id, label_id, labeled_at)
       SELECT m, l, timestamptz '2024-01-01' + (floor(random() * 8) || ' hours')::interval
       FROM unnest($1::int[]) m, unnest($2::int[]) l WHERE random() < CASE l WHEN $3 THEN 0.8 ELSE 0.35 END`,
      [messageIds, labelIds, labelIds[0]],
    );
  });
  afterAll(async () => {
    await service.stop();
  });

  it('builds exact bitmaps from a bulk insert', async () => {
    await expectBitmapsExact(pool);
  });

  it('answers filter, count and related like plain SQL, with either plan', async () => {
    const labelSets = fc.uniqueArray(fc.oneof(fc.constantFrom(...labelIds), fc.constant(999999)), {
      minLength: 1,
      maxLength: 4,
    });
    await fc.assert(
      fc.asyncProperty(
        labelSets,
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 0, max: 60 }),
        async (ids, limit, offset) => {
          const expected = await naiveFilter(pool, ids, limit, offset);
          for (const ratio of [ENUMERATE_ONLY, THRESHOLD_ONLY, undefined]) {
            expect(await filteredIds(pool, ids, { limit, offset }, ratio)).toEqual(expected);
          }
          expect(await countFiltered(pool, ids)).toEqual(await naiveCount(pool, ids));
          expect(await relatedLabels(pool, ids, 5)).toEqual(await naiveRelated(pool, ids, 5));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('answers exactly with more labels listed than any interface would list', async () => {
    const { rows } = await pool.query<{ id: number }>(
      "INSERT INTO mail_labels (name) SELECT 'many-' || g FROM generate_series(1, 18) g RETURNING id",
    );
    const many = rows.map((row) => row.id);
    const tagged = messageIds.slice(0, 40);
    await pool.query(
      `INSERT INTO mail_message_labels (message_id, label_id, labeled_at)
       SELECT m, l, timestamptz '2024-02-01' + (m % 5 || ' minutes')::interval + (l % 3 || ' seconds')::interval
       FROM unnest($1::int[]) m, unnest($2::int[]) l WHERE l <> $3 OR m % 2 = 0`,
      [tagged, many, many[17]],
    );
    for (const ids of [many, many.slice(0, 17), many.slice(0, 16)]) {
      const expected = await naiveFilter(pool, ids, 15, 3);
      expect(expected.length).toBeGreaterThan(0);
      for (const ratio of [ENUMERATE_ONLY, THRESHOLD_ONLY, undefined]) {
        expect(await filteredIds(pool, ids, { limit: 15, offset: 3 }, ratio)).toEqual(expected);
      }
      expect(await countFiltered(pool, ids)).toEqual(await naiveCount(pool, ids));
    }
    await pool.query('DELETE FROM mail_labels WHERE id = ANY ($1::int[])', [many]);
  });

  it('stays exact through random writes of every kind', async () => {
    const write = fc.oneof(
      fc.record({ kind: fc.constant('unlabel'), share: fc.double({ min: 0.01, max: 0.2, noNaN: true }) }),
      fc.record({ kind: fc.constant('label'), share: fc.double({ min: 0.01, max: 0.3, noNaN: true }) }),
      fc.record({ kind: fc.constant('flags'), share: fc.double({ min: 0.05, max: 0.5, noNaN: true }) }),
      fc.record({ kind: fc.constant('redate'), share: fc.double({ min: 0.05, max: 0.5, noNaN: true }) }),
      fc.record({ kind: fc.constant('relabel'), share: fc.double({ min: 0.01, max: 0.1, noNaN: true }) }),
      fc.record({
        kind: fc.constant('deleteMessages'),
        share: fc.double({ min: 0.01, max: 0.05, noNaN: true }),
      }),
      fc.record({ kind: fc.constant('failedInsert'), share: fc.constant(0) }),
    );
    const apply = async ({ kind, share }: { kind: string; share: number }) => {
      switch (kind) {
        case 'unlabel':
          await pool.query('DELETE FROM mail_message_labels WHERE random() < $1', [share]);
          break;
        case 'label':
          await pool.query(
            `INSERT INTO mail_message_labels (message_id, label_id)
             SELECT m.id, l.id FROM mail_messages m, mail_labels l WHERE random() < $1
             ON CONFLICT DO NOTHING`,
            [share],
          );
          break;
        case 'flags':
          await pool.query(
            String.raw`UPDATE mail_messages SET flags = CASE WHEN unread THEN ARRAY['\Seen'] ELSE NULL END
             WHERE random() < $1`,
            [share],
          );
          break;
        case 'redate':
          await pool.query(
            "UPDATE mail_message_labels SET labeled_at = labeled_at + interval '1 hour' WHERE random() < $1",
            [share],
          );
          break;
        case 'relabel':
          // A key change by hand: the link moves to another label (where that link does not exist).
          await pool.query(
            `UPDATE mail_message_labels ml SET label_id = $2 WHERE random() < $1 AND label_id <> $2
             AND NOT EXISTS (SELECT 1 FROM mail_message_labels o WHERE o.message_id = ml.message_id AND o.label_id = $2)
             AND label_id = (SELECT min(label_id) FROM mail_message_labels o WHERE o.message_id = ml.message_id)`,
            [share, labelIds[5]],
          );
          break;
        case 'deleteMessages':
          await pool.query('DELETE FROM mail_messages WHERE random() < $1 AND id <> 2147483647', [share]);
          break;
        case 'failedInsert':
          // One bad row fails the whole statement: no bit may change.
          await expect(
            pool.query(
              `INSERT INTO mail_message_labels (message_id, label_id)
               SELECT m.id, $1 FROM mail_messages m UNION ALL SELECT 1, 999999 ON CONFLICT DO NOTHING`,
              [labelIds[4]],
            ),
          ).rejects.toThrow(/foreign key/);
          break;
      }
    };
    await fc.assert(
      fc.asyncProperty(fc.array(write, { minLength: 1, maxLength: 4 }), async (writes) => {
        for (const w of writes) await apply(w);
        await expectBitmapsExact(pool);
        const ids = labelIds.slice(0, 2);
        expect(await filteredIds(pool, ids, { limit: 20, offset: 0 }, THRESHOLD_ONLY)).toEqual(
          await naiveFilter(pool, ids, 20, 0),
        );
      }),
      { numRuns: 15 },
    );
  });

  it('stays exact under concurrent requests on the same chunks', async () => {
    const labels = labelIds.slice(2, 5);
    const { rows } = await pool.query<{ id: number }>('SELECT id FROM mail_messages ORDER BY id LIMIT 60');
    const messages = rows.map((row) => row.id);
    const requests = messages.flatMap((message) =>
      labels.map((label, i) =>
        service.request(i === 1 ? 'DELETE' : 'PUT', `/api/labels/${label}/messages/${message}`),
      ),
    );
    const responses = await Promise.all(requests);
    expect(responses.map((response) => response.status)).toEqual(requests.map(() => 200));
    await expectBitmapsExact(pool);
  });

  it('drops the bitmaps of a deleted label and keeps the others exact', async () => {
    await pool.query('DELETE FROM mail_labels WHERE id = $1', [labelIds[1]]);
    expect(
      (await pool.query('SELECT count(*)::int AS n FROM mail_label_bits WHERE label_id = $1', [labelIds[1]]))
        .rows[0].n,
    ).toBe(0);
    await expectBitmapsExact(pool);
  });

  it('empties the bitmaps on TRUNCATE', async () => {
    await pool.query('TRUNCATE mail_message_labels');
    await expectBitmapsExact(pool);
    expect((await pool.query('SELECT count(*)::int AS n FROM mail_label_bits')).rows[0].n).toBe(0);
    await pool.query('TRUNCATE mail_messages CASCADE');
    expect((await pool.query('SELECT count(*)::int AS n FROM mail_unread_bits')).rows[0].n).toBe(0);
  });
});
