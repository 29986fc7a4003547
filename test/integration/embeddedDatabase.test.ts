import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readEnvironment } from '../../src/config/environment';
import { startService } from '../../src/service';
import { startEmbeddedDatabase } from '../../src/store/embedded';
import { createMemoryLogger } from '../support/memoryLogger';

/** `npm start` without DATABASE_URL: the data lives in a directory and survives a restart. */
describe('embedded database on disk', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'crondeck-data-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  const start = async () =>
    startService({
      env: readEnvironment({ PORT: '0' }),
      db: await startEmbeddedDatabase({ dataDir }),
      logger: createMemoryLogger(),
      local: { autoTick: false },
    });

  it('keeps jobs and history across a restart', async () => {
    const first = await start();
    const created = await fetch(`${first.url}/api/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'persisted', schedule: '@daily', command: 'echo kept' }),
    });
    const job = (await created.json()) as { id: number };
    await fetch(`${first.url}/api/jobs/${job.id}/run`, { method: 'POST' });
    await first.local!.idle();
    await first.stop();

    const second = await start();
    try {
      const jobs = (await (await fetch(`${second.url}/api/jobs`)).json()) as {
        name: string;
        lastStatus: string;
      }[];
      expect(jobs).toMatchObject([{ name: 'persisted', lastStatus: 'success' }]);
      const executions = (await (await fetch(`${second.url}/api/executions`)).json()) as unknown[];
      expect(executions).toHaveLength(1);
    } finally {
      await second.stop();
    }
  }, 60_000);
});
