import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type PodRunIo, readRunnerSettings, runInPod } from '../../src/runner/podRunner';
import { createMemoryLogger } from '../support/memoryLogger';

interface Received {
  path: string;
  body: Record<string, unknown>;
}

type Answer = { status: number; body: unknown };

/** A stand-in service on loopback: `answer` decides each answer; every request is kept. */
async function standIn(answer: (request: Received, earlier: Received[]) => Answer) {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { path: req.url ?? '', body: JSON.parse(Buffer.concat(chunks).toString() || '{}') };
      const { status, body } = answer(request, [...received]);
      received.push(request);
      res.statusCode = status;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    claims: () => received.filter((r) => r.path === '/api/jobs/7/slots/claim'),
    reports: () => received.filter((r) => r.path === '/api/jobs/7/reports'),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

const CLAIMED = (request: Received): Answer => ({
  status: 200,
  body: { claimed: true, scheduledAt: request.body.scheduledAt },
});
const RECORDED: Answer = { status: 201, body: { id: 1, duplicate: false } };

/** 2026-11-25T16:30:00Z, in minutes since the epoch: the CronJob controller's Job name suffix. */
const SLOT = '2026-11-25T16:30:00.000Z';
const MINUTES = Date.parse(SLOT) / 60_000;

function settings(url: string, env: Record<string, string>) {
  return readRunnerSettings({
    CRONDECK_REPORT_URL: url,
    CRONDECK_JOB_ID: '7',
    CRONDECK_JOB_NAME: 'nightly',
    CRONDECK_COMMAND: 'echo "slot=${CRONDECK_SCHEDULED_TIME:-none}"',
    CRONDECK_REPORT_TOKEN: 'token',
    CRONDECK_POD_UID: 'pod-uid-1',
    CRONDECK_RUN_UID: 'job-uid-1',
    CRONDECK_CRONJOB_NAME: 'nightly',
    ...env,
  });
}

function io(): PodRunIo & { stdout: string; stderr: string } {
  const captured = {
    stdout: '',
    stderr: '',
    out: (text: string) => void (captured.stdout += text),
    err: (text: string) => void (captured.stderr += text),
    signal: new AbortController().signal,
    env: { PATH: process.env.PATH },
    logger: createMemoryLogger(),
    reportBudgetMs: 5000,
    claimBudgetMs: 5000,
  };
  return captured;
}

/**
 * `crondeck run` and its slot: read from the Job's name (or given outright on a catch-up or
 * backfill Job), claimed before the command runs, handed to the command and reported.
 */
describe('the runner of a pod and its run’s slot', () => {
  it('claims the slot its Job’s name says, runs the command with the slot the service answered, and reports it', async () => {
    // The service maps a DST repeat to the slot it repeats: the runner takes its answer.
    const service = await standIn((request) =>
      request.path.endsWith('/claim')
        ? { status: 200, body: { claimed: true, scheduledAt: '2026-11-25T15:30:00.000Z' } }
        : RECORDED,
    );
    try {
      const out = io();
      expect(
        await runInPod(settings(service.url, { CRONDECK_KUBE_JOB_NAME: `nightly-${MINUTES}` }), out),
      ).toBe(0);
      expect(service.claims().map((c) => c.body)).toEqual([{ scheduledAt: SLOT, runKey: 'job-uid-1' }]);
      expect(out.stdout).toBe('slot=2026-11-25T15:30:00.000Z\n');
      expect(service.reports().map((r) => [r.body.scheduledAt, r.body.trigger])).toEqual([
        ['2026-11-25T15:30:00.000Z', 'schedule'],
      ]);
    } finally {
      await service.close();
    }
  });

  it('runs nothing and reports nothing when another run has the slot, ending 0 and saying why', async () => {
    const service = await standIn(() => ({
      status: 409,
      body: { error: `slot ${SLOT} was already claimed by another run (job-uid-0)` },
    }));
    try {
      const out = io();
      expect(
        await runInPod(settings(service.url, { CRONDECK_KUBE_JOB_NAME: `nightly-${MINUTES}` }), out),
      ).toBe(0);
      expect(out.stdout).toBe('');
      expect(service.reports()).toEqual([]);
      expect(out.stderr).toContain(
        `[crondeck] not running the command: slot ${SLOT} was already claimed by another run (job-uid-0)`,
      );
    } finally {
      await service.close();
    }
  });

  it('asks again while the service cannot answer the claim, and runs once it has the slot', async () => {
    const service = await standIn((request, earlier) =>
      request.path.endsWith('/claim')
        ? earlier.length === 0
          ? { status: 503, body: { error: 'starting' } }
          : CLAIMED(request)
        : RECORDED,
    );
    try {
      const out = io();
      expect(
        await runInPod(settings(service.url, { CRONDECK_KUBE_JOB_NAME: `nightly-${MINUTES}` }), out),
      ).toBe(0);
      expect(service.claims()).toHaveLength(2);
      expect(out.stdout).toBe(`slot=${SLOT}\n`);
      expect(out.stderr).toContain('[crondeck] slot claim not answered (the service answered 503)');
    } finally {
      await service.close();
    }
  });

  it('runs a duplicate the job allows, saying so', async () => {
    const service = await standIn((request) =>
      request.path.endsWith('/claim')
        ? { status: 200, body: { claimed: true, duplicate: true, scheduledAt: SLOT } }
        : RECORDED,
    );
    try {
      const out = io();
      expect(
        await runInPod(settings(service.url, { CRONDECK_KUBE_JOB_NAME: `nightly-${MINUTES}` }), out),
      ).toBe(0);
      expect(out.stdout).toBe(`slot=${SLOT}\n`);
      expect(out.stderr).toContain(
        `slot ${SLOT} already has a run; this one runs too (the job allows duplicate slots)`,
      );
    } finally {
      await service.close();
    }
  });

  it('runs without a claim against a service older than claims, and reports again without the new fields', async () => {
    const service = await standIn((request) => {
      if (request.path.endsWith('/claim')) return { status: 404, body: { error: 'not found' } };
      const unknown = ['scheduledAt', 'trigger'].filter((name) => name in request.body);
      return unknown.length > 0
        ? { status: 400, body: { error: `unknown field ${unknown.join(', ')}` } }
        : RECORDED;
    });
    try {
      const out = io();
      expect(
        await runInPod(settings(service.url, { CRONDECK_KUBE_JOB_NAME: `nightly-${MINUTES}` }), out),
      ).toBe(0);
      expect(out.stdout).toBe(`slot=${SLOT}\n`);
      expect(out.stderr).toContain(
        `could not claim slot ${SLOT} (the service answered 404: not found); running without a claim`,
      );
      const reports = service.reports();
      expect(reports).toHaveLength(2);
      expect(reports[1]!.body).not.toHaveProperty('scheduledAt');
      expect(reports[1]!.body).toMatchObject({ status: 'success', attempt: 0, final: true });
      expect(out.stderr).not.toContain('could not report');
    } finally {
      await service.close();
    }
  });

  it('keeps the slot in its report to a service that knows slots but not failure reasons', async () => {
    const service = await standIn((request) => {
      if (request.path.endsWith('/claim')) return CLAIMED(request);
      return 'reason' in request.body ? { status: 400, body: { error: 'unknown field reason' } } : RECORDED;
    });
    try {
      const out = io();
      const killed = settings(service.url, {
        CRONDECK_KUBE_JOB_NAME: `nightly-${MINUTES}`,
        CRONDECK_COMMAND: 'kill -TERM $$',
      });
      expect(await runInPod(killed, out)).toBe(143);
      const reports = service.reports();
      expect(reports).toHaveLength(2);
      expect(reports[0]!.body).toMatchObject({ scheduledAt: SLOT, reason: { code: 'SIGTERM' } });
      expect(reports[1]!.body).not.toHaveProperty('reason');
      expect(reports[1]!.body).toMatchObject({ scheduledAt: SLOT, trigger: 'schedule', exitCode: 143 });
      expect(out.stderr).not.toContain('could not report');
    } finally {
      await service.close();
    }
  });

  it('runs a backfill’s slot as given, without a claim (it runs the slot again on purpose)', async () => {
    const service = await standIn(() => RECORDED);
    try {
      const out = io();
      const backfill = { CRONDECK_SCHEDULED_TIME: SLOT, CRONDECK_TRIGGER: 'backfill' };
      expect(await runInPod(settings(service.url, backfill), out)).toBe(0);
      expect(service.claims()).toEqual([]);
      expect(out.stdout).toBe(`slot=${SLOT}\n`);
      expect(service.reports()[0]!.body).toMatchObject({ scheduledAt: SLOT, trigger: 'backfill' });
    } finally {
      await service.close();
    }
  });

  it('gives a run-now Job no slot: no claim, no scheduledAt, nothing in CRONDECK_SCHEDULED_TIME', async () => {
    const service = await standIn(() => RECORDED);
    try {
      const out = io();
      const manual = { CRONDECK_KUBE_JOB_NAME: `nightly-manual-${String(MINUTES).slice(0, 6)}` };
      expect(await runInPod(settings(service.url, manual), out)).toBe(0);
      expect(service.claims()).toEqual([]);
      expect(out.stdout).toBe('slot=none\n');
      expect(service.reports()[0]!.body).not.toHaveProperty('scheduledAt');
    } finally {
      await service.close();
    }
  });
});
