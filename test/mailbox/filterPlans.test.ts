import fc from 'fast-check';
import type { Pool } from 'pg';
import {
  filterCountStatement,
  filterMessagesStatement,
  labelMessagesStatement,
  relatedLabelsStatement,
} from '../../src/mailbox/filters/filterQueries';
import { countFiltered } from '../../src/mailbox/filters/filterStore';
import { onPostgresServer } from '../support/database';
import { startTestService, type TestService } from '../support/service';
import { ENUMERATE_ONLY, filteredIds, naiveFilter, THRESHOLD_ONLY } from './filterOracle';

/**
 * The edges of the threshold plan of the multi-label filter (src/mailbox/filters/filterQueries.ts):
 * it takes the N = limit + offset members with the highest ids, and from the lowest of their
 * latest dates (T) it reads the other members' links dated T or later, chunk by chunk. Each case is
 * held to the plain relational answer with the plan forced either way and chosen by cost.
 */

const CHUNK = 32768;

describe('the statements of the label filters', () => {
  it('keep one text per name, whatever the labels and the page', () => {
    // A connection prepares a name once; pg refuses the same name with another text.
    const textByName = new Map<string, Set<string>>();
    const add = ({ name, text }: { name: string; text: string }) =>
      textByName.set(name, (textByName.get(name) ?? new Set()).add(text));
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: 2147483647 }), { minLength: 1, maxLength: 20 }),
        fc.integer({ min: 1, max: 500 }),
        fc.integer({ min: 0, max: 2147483647 }),
        (ids, limit, offset) => {
          add(filterMessagesStatement(ids, { limit, offset }));
          add(filterCountStatement(ids));
          add(relatedLabelsStatement(ids, Math.min(limit, 20)));
          add(labelMessagesStatement(ids[0]!, { limit, offset }));
        },
      ),
    );
    const textsPerName = Object.fromEntries([...textByName].map(([name, texts]) => [name, texts.size]));
    expect(textsPerName).toEqual({
      mailbox_filter: 1,
      mailbox_filter_count: 1,
      mailbox_label_messages: 1,
      mailbox_label_messages_with_identity: 1,
      mailbox_related_labels: 1,
    });
  });
});

describe('the threshold plan of the label filter', () => {
  let service: TestService;
  let pool: Pool;

  const createLabel = async (name: string) =>
    (await pool.query<{ id: number }>('INSERT INTO mail_labels (name) VALUES ($1) RETURNING id', [name]))
      .rows[0]!.id;
  const createMessages = (ids: number[]) =>
    pool.query(
      `INSERT INTO mail_messages (id, identity_id, subject) SELECT id, 1, 'm' || id FROM unnest($1::int[]) id`,
      [ids],
    );
  /** Links (message, label, minutes after 2024-01-01). */
  const link = (links: [number, number, number][]) =>
    pool.query(
      `INSERT INTO mail_message_labels (message_id, label_id, labeled_at)
       SELECT m, l, timestamptz '2024-01-01' + minutes * interval '1 minute'
       FROM unnest($1::int[], $2::int[], $3::int[]) AS t(m, l, minutes)`,
      [links.map((l) => l[0]), links.map((l) => l[1]), links.map((l) => l[2])],
    );

  /**
   * Every plan answers the naive answer, for every page in `pages`: planned for the values, and
   * planned once for any values as the service runs it (the same pool on the embedded database).
   */
  const expectExact = async (ids: number[], pages: [number, number][]) => {
    const planning = new Map([
      [service.db.genericPlanPool, 'generic'],
      [service.db.pool, 'per call'],
    ]);
    for (const [limit, offset] of pages) {
      const expected = await naiveFilter(pool, ids, limit, offset);
      for (const [connections, planned] of planning) {
        for (const ratio of [ENUMERATE_ONLY, THRESHOLD_ONLY, undefined]) {
          const page = await filteredIds(connections, ids, { limit, offset }, ratio);
          expect({ limit, offset, ratio, planned, ids: page }).toEqual({
            limit,
            offset,
            ratio,
            planned,
            ids: expected,
          });
        }
      }
    }
  };

  beforeAll(async () => {
    service = await startTestService();
    pool = service.db.pool;
  });
  afterAll(async () => {
    await service.stop();
  });

  it('finds members in old mail whose label came after every newer member', async () => {
    const everywhere = await createLabel('tp-everywhere');
    const project = await createLabel('tp-project');
    // 60 messages in each of four chunks; the project is on the two oldest chunks and on the last
    // ten messages of the newest one.
    const messages = [0, 1, 2, 3].flatMap((chunk) =>
      Array.from({ length: 60 }, (_, i) => chunk * CHUNK + 100 + i),
    );
    await createMessages(messages);
    const links: [number, number, number][] = [];
    messages.forEach((m, rank) => {
      links.push([m, everywhere, rank * 10]);
      const old = m < 2 * CHUNK;
      if (old || rank >= messages.length - 10) {
        // Labels arrive with their message, except on every seventh old message, where the
        // project came long after all of the mail.
        links.push([m, project, old && rank % 7 === 0 ? 100_000 + rank : rank * 10 + 1]);
      }
    });
    await link(links);
    const ids = [everywhere, project];
    // Sanity: the newest page holds old members ahead of the newest ones.
    const first = await naiveFilter(pool, ids, 5, 0);
    expect(first.every((id) => id < 2 * CHUNK)).toBe(true);
    await expectExact(ids, [
      [50, 0],
      [5, 0],
      [10, 5],
      [30, 25],
      [7, 90],
      [50, 120],
      [3, 127],
      [50, 200],
    ]);
  });

  it('finds the member right below the newest N when its label came late, and not one that ties', async () => {
    const a = await createLabel('tp-next-a');
    const b = await createLabel('tp-next-b');
    const messages = Array.from({ length: 10 }, (_, i) => 50 * CHUNK + i);
    await createMessages(messages);
    const links: [number, number, number][] = [];
    messages.forEach((m, rank) => {
      links.push([m, a, rank * 10]);
      // With limit 5 the five newest are ranks 5..9 and T is 50 (rank 5): rank 4 came late, rank 3
      // reaches T exactly and ranks after rank 5 (same date, lower id).
      links.push([m, b, rank === 4 ? 1000 : rank === 3 ? 50 : rank * 10]);
    });
    await link(links);
    expect(await naiveFilter(pool, [a, b], 5, 0)).toEqual([4, 9, 8, 7, 6].map((rank) => messages[rank]));
    expect(await naiveFilter(pool, [a, b], 3, 5)).toEqual([5, 3, 2].map((rank) => messages[rank]));
    await expectExact(
      [a, b],
      [
        [5, 0],
        [4, 1],
        [3, 5],
        [1, 6],
        [6, 0],
      ],
    );
  });

  it('keeps the order by id within ties, across the threshold and across chunks', async () => {
    const a = await createLabel('tp-tie-a');
    const b = await createLabel('tp-tie-b');
    const messages = [5, 6, 7].flatMap((chunk) =>
      Array.from({ length: 40 }, (_, i) => chunk * CHUNK + 3 * i),
    );
    await createMessages(messages);
    const links: [number, number, number][] = [];
    messages.forEach((m, rank) => {
      // Four dates in all: large groups of equal latest dates that a page boundary cuts through;
      // the latest date of a message comes from either label.
      const date = 1000 + 10 * (rank % 4);
      links.push([m, a, rank % 2 === 0 ? date : date - 5]);
      links.push([m, b, rank % 2 === 0 ? date - 5 : date]);
    });
    await link(links);
    const pages: [number, number][] = [];
    for (const limit of [1, 7, 30])
      for (const offset of [0, 1, 29, 30, 31, 59, 60, 61, 119, 120]) pages.push([limit, offset]);
    await expectExact([a, b], pages);
  });

  it('pages beyond the newest chunk and past the last member', async () => {
    const a = await createLabel('tp-deep-a');
    const b = await createLabel('tp-deep-b');
    // Few members per chunk over many chunks, at the ends of the chunks and in the middle.
    const messages = Array.from({ length: 12 }, (_, chunk) => [
      (10 + chunk) * CHUNK,
      (10 + chunk) * CHUNK + 1023,
      (10 + chunk) * CHUNK + 1024,
      (10 + chunk) * CHUNK + 20_000,
      (11 + chunk) * CHUNK - 1,
    ]).flat();
    await createMessages(messages);
    const links: [number, number, number][] = [];
    messages.forEach((m, rank) => {
      links.push([m, a, 2 * rank]);
      // A third of the b labels arrive late, in an order unrelated to the message id.
      links.push([m, b, rank % 3 === 0 ? 500 + ((rank * 37) % 61) : 2 * rank + 1]);
    });
    await link(links);
    await expectExact(
      [a, b],
      [
        [4, 0],
        [4, 3],
        [5, 5],
        [10, 12],
        [20, 37],
        [1, 59],
        [50, 55],
        [10, 60],
        [10, 2147483647],
      ],
    );
  });

  it('answers like plain SQL for random dates, labels arriving late and random pages', async () => {
    const labels = [
      await createLabel('tp-rand-a'),
      await createLabel('tp-rand-b'),
      await createLabel('tp-rand-c'),
    ];
    const messages = [
      ...new Set(fc.sample(fc.integer({ min: 30 * CHUNK, max: 36 * CHUNK - 1 }), { numRuns: 600, seed: 7 })),
    ].sort((x, y) => x - y);
    await createMessages(messages);
    const shape = fc.record({
      on: fc.tuple(fc.boolean(), fc.boolean(), fc.boolean()),
      late: fc.tuple(fc.nat(40), fc.nat(40), fc.nat(40)),
    });
    const drawn = fc.sample(shape, { numRuns: messages.length, seed: 11 });
    const links: [number, number, number][] = [];
    messages.forEach((m, rank) => {
      const { on, late } = drawn[rank]!;
      labels.forEach((label, i) => {
        // The first label is on every message (a global label), the others on about half; dates
        // follow the message order, a tenth of them late, in whole minutes so that ties happen.
        if (i > 0 && !on[i]) return;
        const lateBy = late[i]! < 4 ? 60 * late[i]! + 30 : late[i]! % 3;
        links.push([m, label, rank + lateBy]);
      });
    });
    await link(links);
    await fc.assert(
      fc.asyncProperty(
        fc.subarray(labels, { minLength: 2 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 0, max: 400 }),
        async (ids, limit, offset) => {
          await expectExact(ids, [[limit, offset]]);
        },
      ),
      { numRuns: 40, seed: 3 },
    );
  });

  it('answers an offset at the integer maximum with an empty page, through the API', async () => {
    const a = await createLabel('tp-api-a');
    const b = await createLabel('tp-api-b');
    await createMessages([40 * CHUNK, 40 * CHUNK + 1]);
    await link([
      [40 * CHUNK, a, 1],
      [40 * CHUNK, b, 2],
      [40 * CHUNK + 1, a, 3],
      [40 * CHUNK + 1, b, 1],
    ]);
    const page = async (query: string) => {
      const response = await service.request('GET', `/api/labels/filter?ids=${a},${b}&${query}`);
      expect(response.status).toBe(200);
      return response.body.map((message: { id: number }) => message.id);
    };
    expect(await page('limit=500')).toEqual([40 * CHUNK + 1, 40 * CHUNK]);
    expect(await page('limit=500&offset=1')).toEqual([40 * CHUNK]);
    expect(await page('limit=500&offset=2147483647')).toEqual([]);
  });
});

describe('the connections of the label filters', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(async () => {
    await service.stop();
  });

  const planCacheMode = async (pool: Pool) =>
    (await pool.query<{ plan_cache_mode: string }>('SHOW plan_cache_mode')).rows[0]!.plan_cache_mode;

  it('plan each prepared statement once, on a server', async () => {
    if (!onPostgresServer) {
      // The embedded database is one backend session: one connection for everything.
      expect(service.db.genericPlanPool).toBe(service.db.pool);
      return;
    }
    expect(await planCacheMode(service.db.genericPlanPool)).toBe('force_generic_plan');
    expect(await planCacheMode(service.db.pool)).toBe('auto');

    const label = (await service.request('POST', '/api/labels', { name: 'gp-label' })).body.id as number;
    const client = await service.db.genericPlanPool.connect();
    try {
      for (const ids of [[label], [label, label + 1], [label, label + 1, label + 2]]) {
        expect(await countFiltered(client, ids)).toEqual({ total: 0, unread: 0 });
      }
      const { rows } = await client.query<{ generic_plans: string; custom_plans: string }>(
        `SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = 'mailbox_filter_count'`,
      );
      expect(rows).toEqual([{ generic_plans: '3', custom_plans: '0' }]);
    } finally {
      client.release();
    }
  });
});
