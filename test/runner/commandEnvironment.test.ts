import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jobEnvironment } from '../../src/runner/jobEnvironment';
import { readRunnerSettings, runInPod } from '../../src/runner/podRunner';
import { RUNNER_ENV } from '../../src/runner/runnerEnvironment';
import { createMemoryLogger } from '../support/memoryLogger';

const RUN = { jobId: 4, jobName: 'backup', attempt: 0 };

/** Variables a job's author gives a ScheduledJob's `env`, some named like the service's own. */
const AUTHORS = {
  DATABASE_URL: 'postgres://backup@db/shop',
  SERVICE_NAME: 'billing',
  OTHER: 'ok',
};

describe('the environment of a job’s command', () => {
  it('in a pod, keeps every variable but the runner’s own instructions', () => {
    const env = jobEnvironment(
      { ...AUTHORS, PATH: '/bin', [RUNNER_ENV.reportToken]: 'secret', [RUNNER_ENV.command]: 'pg_dump' },
      RUN,
      'pod',
    );
    expect(env).toEqual({
      ...AUTHORS,
      PATH: '/bin',
      CRONDECK_JOB_ID: '4',
      CRONDECK_JOB_NAME: 'backup',
      CRONDECK_ATTEMPT: '0',
    });
  });

  it('under `crondeck serve`, leaves out the service’s secrets and settings', () => {
    const env = jobEnvironment(
      { ...AUTHORS, PATH: '/bin', SERVICE_API_TOKEN: 'token-of-the-api', CRONDECK_COMMAND: 'x' },
      RUN,
      'service',
    );
    expect(env).toEqual({
      OTHER: 'ok',
      PATH: '/bin',
      CRONDECK_JOB_ID: '4',
      CRONDECK_JOB_NAME: 'backup',
      CRONDECK_ATTEMPT: '0',
    });
  });

  it('reaches the command `crondeck run` starts in a pod, without the report token', async () => {
    const reports: { stdout?: string }[] = [];
    const server: Server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        reports.push(JSON.parse(Buffer.concat(chunks).toString()) as { stdout?: string });
        res.setHeader('content-type', 'application/json');
        res.statusCode = 201;
        res.end(JSON.stringify({ id: reports.length, duplicate: false }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const podEnv = {
        PATH: process.env.PATH,
        ...AUTHORS,
        [RUNNER_ENV.reportUrl]: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        [RUNNER_ENV.jobId]: '4',
        [RUNNER_ENV.command]:
          'echo "[$DATABASE_URL] [$SERVICE_NAME] [$OTHER] [$CRONDECK_REPORT_TOKEN] [$CRONDECK_JOB_ID]"',
        [RUNNER_ENV.reportToken]: 'the-report-token',
        [RUNNER_ENV.podUid]: 'pod-uid-1',
        [RUNNER_ENV.runUid]: 'run-uid-1',
      };
      const exitCode = await runInPod(readRunnerSettings(podEnv), {
        out: () => undefined,
        err: () => undefined,
        signal: new AbortController().signal,
        env: podEnv,
        logger: createMemoryLogger(),
      });
      expect(exitCode).toBe(0);
      expect(reports).toHaveLength(1);
      expect(reports[0]!.stdout).toBe('[postgres://backup@db/shop] [billing] [ok] [] [4]\n');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
