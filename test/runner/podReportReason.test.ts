import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readRunnerSettings, runInPod } from '../../src/runner/podRunner';
import { RUNNER_ENV } from '../../src/runner/runnerEnvironment';
import { createMemoryLogger } from '../support/memoryLogger';

/**
 * A service that takes reports, or (`old`) refuses a `reason` field as a service older than the pod
 * does (a strict schema), the way an upgrade that replaces the pods' image first would meet it.
 */
async function service(old: boolean) {
  const received: Record<string, unknown>[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>;
      received.push(body);
      res.setHeader('content-type', 'application/json');
      if (old && 'reason' in body) {
        res.statusCode = 400;
        res.end(JSON.stringify({ error: 'unknown field reason' }));
        return;
      }
      res.statusCode = 201;
      res.end(JSON.stringify({ id: received.length, duplicate: false }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { received, url, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** `crondeck run` in a pod, its command killed by a signal, reporting to `url`. */
function runKilledCommand(url: string) {
  const settings = readRunnerSettings({
    [RUNNER_ENV.reportUrl]: url,
    [RUNNER_ENV.jobId]: '4',
    [RUNNER_ENV.command]: 'kill -TERM $$',
    [RUNNER_ENV.reportToken]: 'token',
    [RUNNER_ENV.podUid]: 'pod-uid-1',
    [RUNNER_ENV.runUid]: 'run-uid-1',
  });
  return runInPod(settings, {
    out: () => undefined,
    err: () => undefined,
    signal: new AbortController().signal,
    env: { PATH: process.env.PATH },
    logger: createMemoryLogger(),
  });
}

describe('a pod’s report of why its command ended', () => {
  it('carries the signal that killed the command', async () => {
    const current = await service(false);
    try {
      expect(await runKilledCommand(current.url)).toBe(143);
      expect(current.received).toHaveLength(1);
      expect(current.received[0]).toMatchObject({
        exitCode: 143,
        reason: { code: 'SIGTERM', message: 'the command was killed by SIGTERM (exit code 143)' },
      });
    } finally {
      await current.close();
    }
  });

  it('is sent again without the reason to a service that does not know the field', async () => {
    const old = await service(true);
    try {
      expect(await runKilledCommand(old.url)).toBe(143);
      expect(old.received).toHaveLength(2);
      expect(old.received[0]).toHaveProperty('reason');
      expect(old.received[1]).not.toHaveProperty('reason');
      expect(old.received[1]).toMatchObject({ podUid: 'pod-uid-1', attempt: 0, final: true, exitCode: 143 });
    } finally {
      await old.close();
    }
  });
});
