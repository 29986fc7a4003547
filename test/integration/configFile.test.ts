import { parseJobsFile } from '../../src/config/jobsFile';
import { createTestDatabase } from '../support/database';
import { startTestService } from '../support/service';

describe('jobs declared in a config file', () => {
  it('are created at start, and a second start with the same file creates no duplicates', async () => {
    const declared = parseJobsFile(
      `jobs:
  - { name: backup, schedule: "0 2 * * *", command: "echo backup", tags: [nightly] }
  - { name: report, schedule: "@hourly", command: "echo report", timezone: Europe/Paris }
`,
      'jobs.yaml',
    );
    const db = await createTestDatabase();
    try {
      const first = await startTestService({ db, declaredJobs: declared });
      const jobs = (await first.request('GET', '/api/jobs')).body;
      expect(jobs.map((j: { name: string }) => j.name)).toEqual(['backup', 'report']);
      await first.stop();

      const changed = parseJobsFile(
        'jobs:\n  - { name: backup, schedule: "0 3 * * *", command: "echo backup" }\n',
        'jobs.yaml',
      );
      const second = await startTestService({ db, declaredJobs: changed });
      const after = (await second.request('GET', '/api/jobs')).body;
      expect(after).toHaveLength(2);
      expect(after[0]).toMatchObject({ id: jobs[0].id, name: 'backup', schedule: '0 3 * * *' });
      await second.stop();
    } finally {
      await db.close();
    }
  });
});
