import { JobListBodies } from '../../src/caching/jobListBody';
import { pageOfJobs } from '../../src/http/routes/jobList';
import { startTestService, type TestService } from '../support/service';

const job = (name: string) => ({ name, schedule: '0 3 * * *', command: `echo ${name}` });

/**
 * The job list, whole as the spec has it, or in pages (`?limit=&after=`, an extension: issue 38,
 * where 1,500 jobs with their longest fields made a 112 MB answer). Pages follow the ids, so a
 * job there all along is on exactly one page whatever is created, changed or deleted meanwhile.
 */
describe('the job list in pages', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ local: { execute: undefined } });
  });
  afterAll(async () => {
    await service.stop();
  });
  beforeEach(async () => {
    await service.db.pool.query('DELETE FROM jobs');
  });

  const create = async (name: string) => {
    const created = await service.request('POST', '/api/jobs', job(name));
    expect(created.status).toBe(201);
    return created.body.id as number;
  };
  const list = (query = '') => service.request('GET', `/api/jobs${query}`);
  const idsOf = (body: { id: number }[]) => body.map((listed) => listed.id);

  it('answers the plain request with every job, the bytes of the single reads in an array', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 70; i++) ids.push(await create(`whole-${i}`));
    const whole = await list();
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(Number(whole.headers.get('content-length'))).toBe(Buffer.byteLength(whole.text));
    const singles = await Promise.all(
      ids.map(async (id) => (await service.request('GET', `/api/jobs/${id}`)).text),
    );
    expect(whole.text).toBe(`[${singles.join(',')}]`);
    // Read again, from the kept rendering: the same bytes.
    expect((await list()).text).toBe(whole.text);
  });

  it('answers an empty list as []', async () => {
    expect((await list()).text).toBe('[]');
    expect((await list('?limit=5')).text).toBe('[]');
  });

  it('pages by id: `limit` jobs after `after`, the last page shorter', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 75; i++) ids.push(await create(`paged-${i}`));
    const whole = (await list()).body as { id: number }[];
    expect(idsOf((await list('?limit=10')).body)).toEqual(ids.slice(0, 10));
    expect(idsOf((await list(`?limit=10&after=${ids[9]}`)).body)).toEqual(ids.slice(10, 20));
    expect(idsOf((await list(`?after=${ids[40]}`)).body)).toEqual(ids.slice(41, 75)); // default limit 100
    expect(idsOf((await list(`?limit=1000&after=${ids[73]}`)).body)).toEqual([ids[74]]);
    expect((await list(`?after=${ids[74]}`)).body).toEqual([]);
    expect((await list('?after=2147483647')).body).toEqual([]);
    // A page is the same jobs, byte for byte, as the whole list shows them.
    for (const [after, limit] of [
      [0, 1],
      [ids[30]! - 1, 33],
      [ids[31]!, 3],
    ]) {
      const page = await list(`?limit=${limit}&after=${after}`);
      expect(page.text).toBe(JSON.stringify(whole.filter((listed) => listed.id > after!).slice(0, limit)));
    }
  });

  it.each([
    ['limit=0', 'limit: must be an integer from 1 to 1000'],
    ['limit=1001', 'limit: must be an integer from 1 to 1000'],
    ['limit=-1', 'limit: must be an integer from 1 to 1000'],
    ['limit=1.5', 'limit: must be an integer from 1 to 1000'],
    ['limit=ten', 'limit: must be an integer from 1 to 1000'],
    ['limit=', 'limit: must be an integer from 1 to 1000'],
    ['limit=1&limit=2', 'limit: may be given only once'],
    ['after=-1', 'after: must be a job id: an integer from 0 to 2147483647'],
    ['after=2147483648', 'after: must be a job id: an integer from 0 to 2147483647'],
    ['after=1e3', 'after: must be a job id: an integer from 0 to 2147483647'],
    ['after=1&after=2', 'after: may be given only once'],
  ])('answers ?%s with a 400 naming the parameter', async (query, error) => {
    const answer = await list(`?${query}`);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error });
  });

  it('covers every job exactly once while jobs are created, changed and deleted between pages', async () => {
    const original: number[] = [];
    for (let i = 0; i < 120; i++) original.push(await create(`steady-${i}`));
    const seen: number[] = [];
    let after = 0;
    for (let round = 0; ; round++) {
      // 120 jobs in pages of 9: 14 pages; a list that ignored the paging would never end.
      expect(round).toBeLessThan(20);
      // Between two pages: new jobs (ids after every original), some deleted again, an original changed.
      const added = await Promise.all([create(`new-${round}-a`), create(`new-${round}-b`)]);
      expect((await service.request('DELETE', `/api/jobs/${added[0]}`)).status).toBe(200);
      const changed = original[(round * 7) % original.length]!;
      const put = await service.request('PUT', `/api/jobs/${changed}`, {
        ...job(`steady-changed-${round}`),
        description: `changed in round ${round}`,
      });
      expect(put.status).toBe(200);
      const page = (await list(`?limit=9&after=${after}`)).body as { id: number }[];
      seen.push(...idsOf(page));
      if (page.length < 9) break;
      after = page[page.length - 1]!.id;
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort((a, b) => a - b)).toEqual(seen);
    for (const id of original) expect(seen.filter((listed) => listed === id)).toHaveLength(1);
  });
});

/**
 * The whole list is rendered in groups of ids: a rendering after a change shares every group the
 * change left as it was with the rendering before (the same buffers, not copies), so the answers
 * still being sent and the new one hold one copy of what did not change.
 */
describe('the rendering of the whole job list', () => {
  const views = (count: number, changed = -1) =>
    Array.from({ length: count }, (_, i) => ({
      id: i + 1,
      text: i === changed ? 'changed' : `job ${i + 1}`,
    }));
  const bodies = () => new JobListBodies((view: { id: number; text: string }) => JSON.stringify(view));
  const textOf = (parts: Buffer[]) => Buffer.concat(parts).toString();

  it('writes the JSON array of the jobs', () => {
    for (const count of [0, 1, 31, 32, 33, 100]) {
      expect(textOf(bodies().render(views(count)))).toBe(JSON.stringify(views(count)));
    }
    const sparse = [
      { id: 5, text: 'a' },
      { id: 700, text: 'b' },
      { id: 701, text: 'c' },
    ];
    expect(textOf(bodies().render(sparse))).toBe(JSON.stringify(sparse));
  });

  it('shares every unchanged group with the rendering before', () => {
    const renderer = bodies();
    const before = renderer.render(views(200));
    const after = renderer.render(views(200, 50));
    expect(textOf(after)).toBe(JSON.stringify(views(200, 50)));
    expect(after).toHaveLength(before.length);
    const shared = after.filter((part, i) => part === before[i]);
    // All but the group of job 51 (and the first group's part, a new slice of the same buffer).
    expect(shared.length).toBe(after.length - 2);
    expect(after[1]!.buffer).toBe(before[1]!.buffer);
    const unchanged = renderer.render(views(200, 50));
    expect(unchanged.slice(2).every((part, i) => part === after[i + 2])).toBe(true);
  });

  it('pages a list read for one request (a namespace’s jobs) as the database pages the whole one', () => {
    const list = [{ id: 2 }, { id: 3 }, { id: 7 }, { id: 9 }];
    expect(pageOfJobs(list, { after: 0, limit: 2 })).toEqual([{ id: 2 }, { id: 3 }]);
    expect(pageOfJobs(list, { after: 3, limit: 5 })).toEqual([{ id: 7 }, { id: 9 }]);
    expect(pageOfJobs(list, { after: 4, limit: 1 })).toEqual([{ id: 7 }]);
    expect(pageOfJobs(list, { after: 9, limit: 5 })).toEqual([]);
  });
});
