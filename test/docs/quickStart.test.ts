/**
 * The README's "Try it in a minute" commands, run as written (with bash, curl and node) against the
 * real service, twice: a newcomer's first steps must work, and again on a service that already
 * has the job.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { eventually, startTestService, type TestService } from '../support/service';

const README = path.resolve(__dirname, '..', '..', 'README.md');

/** The first `sh` block of the section that holds a curl command. */
function quickStartCommands(): string {
  const text = readFileSync(README, 'utf8');
  const section = text.slice(text.indexOf('## Try it in a minute'));
  const block = [...section.matchAll(/```sh\n([\s\S]*?)```/g)]
    .map((match) => match[1]!)
    .find((commands) => commands.includes('curl'));
  if (!block) throw new Error('no curl commands in "Try it in a minute"');
  return block;
}

describe('the README quick start', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(async () => {
    await service.stop();
  });

  it('creates, runs and shows a job with its output, and works again when run a second time', async () => {
    const commands = quickStartCommands();
    expect(commands).toContain('localhost:7433');
    const script = `set -euo pipefail\n${commands.replaceAll('localhost:7433', new URL(service.url).host)}`;
    const run = async () => (await promisify(execFile)('bash', ['-c', script], { timeout: 20_000 })).stdout;

    // Another job first, so that the commands cannot be right by assuming id 1.
    await service.request('POST', '/api/jobs', { name: 'someone-else', schedule: '@daily', command: 'true' });
    const first = await run();
    expect(first.split('\n')[0]).toMatch(/"name":"hello".* \(HTTP 201\)$/);
    expect(first).toContain('"stdout":"hello from crondeck\\n"');

    const second = await run();
    expect(second.split('\n')[0]).toBe('{"error":"a job named \\"hello\\" already exists"} (HTTP 409)');
    expect(second).toContain('"stdout":"hello from crondeck\\n"');
    const jobs = (await service.request('GET', '/api/jobs')).body as { name: string }[];
    expect(jobs.filter((job) => job.name === 'hello')).toHaveLength(1);
    // The second run's record may land after the commands have shown the first's.
    await eventually(async () => (await service.request('GET', '/api/executions')).body.length === 2);
    const runs = (await service.request('GET', '/api/executions')).body as {
      jobName: string;
      status: string;
    }[];
    expect(runs.map(({ jobName, status }) => [jobName, status])).toEqual([
      ['hello', 'success'],
      ['hello', 'success'],
    ]);
  });
});
