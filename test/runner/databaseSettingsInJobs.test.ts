/**
 * The PG* variables libpq reads (PGPASSWORD, PGHOST, PGSSLKEY...) are, in the environment of
 * `crondeck serve`, the service's own database settings and secrets: no job's command sees them, as
 * none sees DATABASE_URL. In a pod they were put there by the job's author, and the command gets them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jobEnvironment, LIBPQ_VARIABLES } from '../../src/runner/jobEnvironment';
import { runCommand } from '../../src/runner/runCommand';
import { serve } from '../support/cliServe';
import { eventually } from '../support/service';

const RUN = { jobId: 4, jobName: 'report', attempt: 0 };

/** Every libpq variable, each with a value of its own. */
const SERVICE_DATABASE_SETTINGS = Object.fromEntries(LIBPQ_VARIABLES.map((name) => [name, `secret-${name}`]));

/** The variables of `env`'s output. */
const variablesOf = (output: string) =>
  new Map(
    output.split('\n').map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );

describe('the database settings of the service in a job’s environment', () => {
  it('names every variable of libpq’s list', () => {
    for (const name of ['PGHOST', 'PGHOSTADDR', 'PGPORT', 'PGDATABASE', 'PGUSER', 'PGPASSWORD']) {
      expect(LIBPQ_VARIABLES).toContain(name);
    }
    for (const name of ['PGPASSFILE', 'PGSERVICE', 'PGSERVICEFILE', 'PGSSLMODE', 'PGSSLKEY', 'PGSSLCERT']) {
      expect(LIBPQ_VARIABLES).toContain(name);
    }
  });

  it('never reaches a command the service runs', async () => {
    const env = jobEnvironment(
      { PATH: process.env.PATH, OTHER: 'kept', ...SERVICE_DATABASE_SETTINGS },
      RUN,
      'service',
    );
    const result = await runCommand({ command: 'env', timeoutSeconds: 0, env });
    const seen = variablesOf(result.stdout);
    expect(LIBPQ_VARIABLES.filter((name) => seen.has(name))).toEqual([]);
    expect(seen.get('OTHER')).toBe('kept');
  });

  it('reaches a command run in a pod, where the job’s author set it', async () => {
    const env = jobEnvironment({ PATH: process.env.PATH, ...SERVICE_DATABASE_SETTINGS }, RUN, 'pod');
    const result = await runCommand({ command: 'env', timeoutSeconds: 0, env });
    expect(variablesOf(result.stdout).get('PGPASSWORD')).toBe('secret-PGPASSWORD');
  });

  describe('of a real `crondeck serve`', () => {
    let dir: string;
    let service: ReturnType<typeof serve> | undefined;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'crondeck-pgenv-'));
    });
    afterAll(() => {
      service?.child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    });

    it('runs a job that prints its environment without them', async () => {
      // Those that would change how the service's own embedded connection is made are left out here
      // (the unit test above covers every one).
      const given = {
        PGPASSWORD: 'the-service-password',
        PGPASSFILE: join(dir, 'no-such-pgpass'),
        PGSERVICE: 'billing',
        PGSSLKEY: join(dir, 'client.key'),
        PGAPPNAME: 'crondeck',
      };
      service = serve(join(dir, 'data'), { ...given, JOB_VISIBLE: 'yes' });
      const url = String((await service.waitForLog('crondeck is listening')).url);
      const created = await fetch(`${url}/api/jobs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'print-env', schedule: '@daily', command: 'env' }),
      }).then((response) => response.json() as Promise<{ id: number }>);
      expect((await fetch(`${url}/api/jobs/${created.id}/run`, { method: 'POST' })).status).toBe(200);
      const execution = await eventually(async () => {
        const list = (await fetch(`${url}/api/executions?jobId=${created.id}`).then((r) => r.json())) as {
          id: number;
          status: string;
        }[];
        return list[0] && list[0].status !== 'running' ? list[0] : null;
      }, 20_000);
      const read = (await fetch(`${url}/api/executions/${execution.id}`).then((r) => r.json())) as {
        status: string;
        stdout: string;
      };
      expect(read.status).toBe('success');
      const seen = variablesOf(read.stdout);
      expect(Object.keys(given).filter((name) => seen.has(name))).toEqual([]);
      expect(seen.get('JOB_VISIBLE')).toBe('yes');
    }, 60_000);
  });
});
