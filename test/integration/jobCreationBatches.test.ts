import { checkCron, fireTimesAfter } from '../../src/domain/cron';
import type { Job, JobInput } from '../../src/domain/job';
import { jobInputSchema } from '../../src/domain/job';
import type { Runtime } from '../../src/runtime/runtime';
import { RuntimeRefusedError } from '../../src/runtime/runtimeRefused';
import { startTestService, type TestService } from '../support/service';

/**
 * Creations made together are written together (JobService's group commit). Whatever batch a
 * creation falls into, it gets its own outcome: its own job, a conflict when its name is taken, the
 * runtime's refusal when the runtime refuses it, and nothing else of the batch fails with it.
 */

interface Told {
  /** Every job the runtime was told of. */
  jobs: Job[];
  /** Of a runtime that saves in memory: whether each job (by name) was committed when it was told. */
  committed: Map<string, boolean>;
}

/**
 * A runtime that refuses the jobs whose names are listed, and remembers every job it was told of.
 * With `savesInMemory`, it is told after the creation has committed (it looks, through
 * `isStored`), and refuses nothing.
 */
function refusingNames(
  refused: Set<string>,
  told: Told,
  savesInMemory: boolean,
  isStored: (id: number) => Promise<boolean>,
) {
  return (inner: Runtime): Runtime => ({
    savesInMemory,
    start: () => inner.start(),
    stop: () => inner.stop(),
    jobSaved: async (job) => {
      if (refused.has(job.name)) throw new RuntimeRefusedError(`the cluster refused "${job.name}"`);
      if (savesInMemory) told.committed.set(job.name, await isStored(job.id));
      told.jobs.push(job);
      await inner.jobSaved(job);
    },
    jobDeleted: (id) => inner.jobDeleted(id),
    runNow: (job) => inner.runNow(job),
    schedulerChanged: (state) => inner.schedulerChanged(state),
    suspensionChanged: (job) => inner.suspensionChanged(job),
    backfill: (job, backfill) => inner.backfill(job, backfill),
  });
}

const input = (name: string, command = `echo ${name}`): JobInput =>
  jobInputSchema.parse({ name, schedule: '0 * * * *', command });

describe.each([
  ['a runtime told inside the transaction', false],
  ['a runtime told after the commit', true],
])('creating jobs together, with %s', (_, savesInMemory) => {
  const refused = new Set<string>();
  const told: Told = { jobs: [], committed: new Map() };
  let service: TestService;
  const storedNames = async () =>
    (await service.db.pool.query<{ name: string }>('SELECT name FROM jobs ORDER BY name')).rows.map(
      (row) => row.name,
    );

  /**
   * Creates five jobs at once, `failing` third: the first is written alone, the other four go in one
   * batch. Only `failing` must fail, and be stored nowhere; answers why it failed.
   */
  const createFiveWithOneFailing = async (failing: string): Promise<unknown> => {
    const names = ['first', 'a', failing, 'b', 'c'];
    const outcomes = await Promise.allSettled(names.map((name) => service.jobs.create(input(name))));
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
    ]);
    expect(await storedNames()).toEqual(['a', 'b', 'c', 'first']);
    return (outcomes[2] as PromiseRejectedResult).reason;
  };

  beforeAll(async () => {
    const isStored = async (id: number) =>
      (await service.db.pool.query('SELECT 1 FROM jobs WHERE id = $1', [id])).rowCount === 1;
    service = await startTestService({
      wrapRuntime: refusingNames(refused, told, savesInMemory, isStored),
    });
  });
  afterAll(async () => {
    await service.stop();
  });
  beforeEach(async () => {
    refused.clear();
    told.jobs.length = 0;
    told.committed.clear();
    await service.db.pool.query('DELETE FROM jobs');
  });

  it('gives each creation its own job, and a conflict to every creation of a name but the first', async () => {
    await service.jobs.create(input('taken-before'));
    const names = [
      ...Array.from({ length: 20 }, (_, i) => `job-${String(i).padStart(2, '0')}`),
      'twice',
      'twice',
      'taken-before',
    ];
    // Submitted in one go: the first is written alone, the others wait and go together.
    const outcomes = await Promise.allSettled(
      names.map((name, i) => service.jobs.create(input(name, `echo ${i}`))),
    );

    const rows = (
      await service.db.pool.query<{ id: number; name: string; command: string }>(
        'SELECT id, name, command FROM jobs',
      )
    ).rows;
    const byName = new Map(rows.map((row) => [row.name, row]));
    outcomes.slice(0, 21).forEach((outcome, i) => {
      expect(outcome.status).toBe('fulfilled');
      const job = (outcome as PromiseFulfilledResult<Job>).value;
      expect(job).toMatchObject({ name: names[i], command: `echo ${i}`, id: byName.get(names[i]!)!.id });
    });
    for (const outcome of outcomes.slice(21)) {
      expect(outcome.status).toBe('rejected');
    }
    expect((outcomes[21] as PromiseRejectedResult).reason.message).toBe('a job named "twice" already exists');
    expect((outcomes[22] as PromiseRejectedResult).reason.message).toBe(
      'a job named "taken-before" already exists',
    );
    expect(byName.get('twice')!.command).toBe('echo 20');
    expect(rows).toHaveLength(22);
    // The runtime heard of each job created, once.
    expect(told.jobs.map((job) => job.name).sort()).toEqual([...byName.keys()].sort());
    // Told after the commit, the runtime found each job stored; told inside, it did not look.
    expect([...told.committed.values()]).toEqual(savesInMemory ? rows.map(() => true) : []);
  });

  // Only a runtime told inside the transaction may refuse: its refusal rolls the job back.
  if (!savesInMemory)
    it('fails only the creation that the runtime refuses, and stores none of it', async () => {
      refused.add('refused');
      const refusal = await createFiveWithOneFailing('refused');
      expect(refusal).toBeInstanceOf(RuntimeRefusedError);
    });

  it('fails only the creation whose row the database refuses, and stores none of it', async () => {
    const sql = (text: string) => service.db.pool.query(text);
    await sql(`ALTER TABLE jobs ADD CONSTRAINT refuses_one_name CHECK (name <> 'refused-by-db')`);
    try {
      await createFiveWithOneFailing('refused-by-db');
      expect(told.jobs.map((job) => job.name).sort()).toEqual(['a', 'b', 'c', 'first']);
    } finally {
      await sql('ALTER TABLE jobs DROP CONSTRAINT refuses_one_name');
    }
  });

  it('answers each over HTTP as a single creation is answered', async () => {
    const bodies = ['one', 'two', 'two'].map((name) => ({ name, schedule: '@daily', command: 'true' }));
    const answers = await Promise.all(bodies.map((body) => service.request('POST', '/api/jobs', body)));
    expect(answers.map((answer) => answer.status)).toEqual([201, 201, 409]);
    expect(answers[2]!.body).toEqual({ error: 'a job named "two" already exists' });
    expect(answers[0]!.body).toMatchObject({ name: 'one', enabled: true, running: null });
    expect(await storedNames()).toEqual(['one', 'two']);
  });

  it('starts the slot ledger of every job of a batch, with a hold for each created disabled', async () => {
    const names = Array.from({ length: 12 }, (_, i) => `ledger-${String(i).padStart(2, '0')}`);
    await Promise.all(
      names.map((name, i) =>
        service.jobs.create(
          jobInputSchema.parse({ ...input(name), timezone: 'Europe/Paris', enabled: i % 3 !== 0 }),
        ),
      ),
    );
    const { rows } = await service.db.pool.query<{ name: string; timezone: string; held: boolean }>(
      `SELECT j.name, c.timezone,
              EXISTS (SELECT 1 FROM slot_holds h WHERE h.job_id = j.id AND h.until_at IS NULL) AS held
         FROM jobs j JOIN slot_cursors c ON c.job_id = j.id AND c.schedule = j.schedule
        ORDER BY j.name`,
    );
    expect(rows).toEqual(names.map((name, i) => ({ name, timezone: 'Europe/Paris', held: i % 3 === 0 })));
  });

  it('plans each new cursor as the judge would, from its first slot and grace, the first creation’s of a name', async () => {
    const bodies = [
      { name: 'hourly', schedule: '0 * * * *', timezone: 'Asia/Kathmandu', lateAfterSeconds: 60 },
      { name: 'five', schedule: '*/5 * * * *', lateAfterSeconds: 30 },
      { name: 'twice', schedule: '30 4 * * *', timezone: 'America/New_York', lateAfterSeconds: 120 },
      { name: 'twice', schedule: '* * * * *', lateAfterSeconds: 3600 },
    ];
    await Promise.allSettled(
      [input('alone'), ...bodies.map((body) => jobInputSchema.parse({ command: 'true', ...body }))].map(
        (each) => service.jobs.create(each),
      ),
    );
    const { rows } = await service.db.pool.query<{ name: string; judged_until: Date; due_at: Date | null }>(
      `SELECT j.name, c.judged_until, c.due_at FROM jobs j JOIN slot_cursors c ON c.job_id = j.id`,
    );
    const cursors = new Map(rows.map((row) => [row.name, row]));
    const dueOf = (name: string, schedule: string, zone: string, graceSeconds: number) => {
      const cursor = cursors.get(name)!;
      const check = checkCron(schedule);
      if (!check.valid) throw new Error(check.error);
      const first: Date = fireTimesAfter(check.fields, zone, cursor.judged_until).next().value;
      return {
        name,
        judgedUntil: cursor.judged_until,
        dueAt: new Date(first.getTime() + graceSeconds * 1000),
      };
    };
    const actual = (name: string) => {
      const cursor = cursors.get(name)!;
      return { name, judgedUntil: cursor.judged_until, dueAt: cursor.due_at };
    };
    expect(actual('hourly')).toEqual(dueOf('hourly', '0 * * * *', 'Asia/Kathmandu', 60));
    expect(actual('five')).toEqual(dueOf('five', '*/5 * * * *', 'UTC', 30));
    expect(actual('twice')).toEqual(dueOf('twice', '30 4 * * *', 'America/New_York', 120));
  });
});
