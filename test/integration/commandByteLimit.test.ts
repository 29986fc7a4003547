/**
 * A command must fit in what exec takes (MAX_ARG_STRLEN, 128 KiB with its NUL), counted in UTF-8
 * bytes: 65,000 characters of three bytes pass the character limit but could never start. Every way
 * in refuses it, naming the byte limit: the REST API (create and replace), a config file, and a
 * ScheduledJob. One at the limit is taken and runs, as `sh -c`'s argument and as the CRONDECK_COMMAND
 * a pod's runner is started with.
 */
import { spawnSync } from 'node:child_process';
import { parseJobsFile } from '../../src/config/jobsFile';
import { jobInputOfScheduledJob } from '../../src/controller/scheduledJobs/jobInput';
import { MAX_COMMAND_BYTES } from '../../src/domain/job';
import type { ScheduledJob } from '../../src/kube/resources/scheduledJob';
import { RUNNER_ENV } from '../../src/runner/runnerEnvironment';
import { eventually, startTestService, type TestService } from '../support/service';

const BYTE_LIMIT_MESSAGE = `command: must be at most ${MAX_COMMAND_BYTES} bytes in UTF-8`;

/** 65,000 characters (under the limit of 65,536), 195,000 bytes. */
const MULTI_BYTE = `echo ${'€'.repeat(65_000)}`;

/** A command of exactly `bytes` bytes that prints `ok`: `echo ok #` and a comment of three-byte `€`. */
function commandOfBytes(bytes: number): string {
  const head = 'echo ok #';
  const euros = Math.floor((bytes - head.length) / 3);
  const command = head + '€'.repeat(euros) + 'x'.repeat(bytes - head.length - euros * 3);
  expect(Buffer.byteLength(command)).toBe(bytes);
  return command;
}

describe('the byte limit of a command', () => {
  it('is what exec takes, as the argument of sh -c and as the CRONDECK_COMMAND of a pod’s runner', () => {
    const atLimit = commandOfBytes(MAX_COMMAND_BYTES);
    expect(spawnSync('/bin/sh', ['-c', atLimit], { encoding: 'utf8' })).toMatchObject({ stdout: 'ok\n' });
    const env = (command: string) => ({ PATH: process.env.PATH, [RUNNER_ENV.command]: command });
    expect(spawnSync('/bin/sh', ['-c', 'true'], { env: env(atLimit) })).toMatchObject({ status: 0 });
    // One byte more and exec refuses to start the runner.
    const over = spawnSync('/bin/sh', ['-c', 'true'], { env: env(`${atLimit}x`) });
    expect(over.error).toMatchObject({ code: 'E2BIG' });
  });

  describe('through the REST API', () => {
    let service: TestService;
    beforeAll(async () => {
      service = await startTestService();
    });
    afterAll(() => service.stop());

    it('refuses a command over it at create and at replace, naming it; the character limit keeps its message', async () => {
      const job = { name: 'too-long', schedule: '@daily', command: MULTI_BYTE };
      expect(await service.request('POST', '/api/jobs', job)).toMatchObject({
        status: 400,
        body: { error: BYTE_LIMIT_MESSAGE },
      });
      const created = await service.request('POST', '/api/jobs', { ...job, command: 'true' });
      expect(created.status).toBe(201);
      expect(await service.request('PUT', `/api/jobs/${created.body.id}`, job)).toMatchObject({
        status: 400,
        body: { error: BYTE_LIMIT_MESSAGE },
      });
      expect(
        await service.request('POST', '/api/jobs', { ...job, command: 'x'.repeat(65_537) }),
      ).toMatchObject({ status: 400, body: { error: 'command: must be at most 65536 characters' } });
      const read = await service.request('GET', `/api/jobs/${created.body.id}`);
      expect(read.body.command).toBe('true');
    });

    it('takes a command at the limit, which runs', async () => {
      const created = await service.request('POST', '/api/jobs', {
        name: 'at-the-limit',
        schedule: '@daily',
        command: commandOfBytes(MAX_COMMAND_BYTES),
      });
      expect(created.status).toBe(201);
      expect((await service.request('POST', `/api/jobs/${created.body.id}/run`)).status).toBe(200);
      const [execution] = await eventually(async () => {
        const list = await service.request('GET', `/api/executions?jobId=${created.body.id}`);
        return list.body.length && list.body[0].status !== 'running' ? list.body : null;
      });
      expect(execution).toMatchObject({ status: 'success', exitCode: 0 });
    });
  });

  it('refuses a command over it in a config file, naming the job', () => {
    const file = JSON.stringify({ jobs: [{ name: 'nightly', schedule: '@daily', command: MULTI_BYTE }] });
    expect(() => parseJobsFile(file, 'jobs.json')).toThrow(`jobs.json: job "nightly": ${BYTE_LIMIT_MESSAGE}`);
  });

  it('refuses a command over it in a ScheduledJob, naming spec.command', () => {
    const resource: ScheduledJob = {
      apiVersion: 'crondeck.dev/v1alpha1',
      kind: 'ScheduledJob',
      metadata: { name: 'nightly', namespace: 'crondeck' },
      spec: { schedule: '0 3 * * *', command: MULTI_BYTE } as ScheduledJob['spec'],
    };
    expect(jobInputOfScheduledJob(resource, 'crondeck')).toEqual({
      ok: false,
      message: `spec.${BYTE_LIMIT_MESSAGE}`,
    });
  });
});
