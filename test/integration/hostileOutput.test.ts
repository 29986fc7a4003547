import { Receiver } from '../alerts/support/receiver';
import { eventually, startTestService, type TestService } from '../support/service';

function sample(metrics: string, line: string): number {
  const match = metrics.split('\n').find((l) => l.startsWith(line + ' '));
  if (!match) throw new Error(`no sample ${line}`);
  return Number(match.slice(line.length + 1));
}

/** Output Postgres text cannot hold as it is: NUL, invalid UTF-8, arbitrary binary. */
describe('a job whose output is not text', () => {
  let service: TestService;
  let receiver: Receiver;
  beforeEach(async () => {
    receiver = await Receiver.start();
    service = await startTestService({ alerting: { pollIntervalMs: 50 } });
  });
  afterEach(async () => {
    await service.stop();
    await receiver.close();
  });

  const detail = async (id: number) => (await service.request('GET', `/api/executions/${id}`)).body;
  const metrics = async () => (await fetch(`${service.url}/metrics`)).text();

  it('records, counts, retries and alerts every attempt, NUL shown as ␀ and bad bytes as U+FFFD', async () => {
    const before = sample(await metrics(), 'service_executions_total{status="failed"}');
    const created = await service.request('POST', '/api/jobs', {
      name: 'binary-output',
      schedule: '@daily',
      // NUL, an invalid UTF-8 sequence, a lone continuation byte, then every byte value on stderr.
      command: "printf 'a\\000b\\377\\376c\\200'; head -c 256 /dev/urandom >&2; printf 'x\\000' >&2; exit 3",
      retry: { maxAttempts: 1, baseDelay: 0 },
    });
    expect(created.status).toBe(201);
    const jobId = created.body.id;
    await service.request('PUT', `/api/jobs/${jobId}/alerts`, {
      webhooks: [{ url: `${receiver.url}/hook`, events: ['failed'] }],
    });
    expect((await service.request('POST', `/api/jobs/${jobId}/run`)).status).toBe(200);
    await service.local.idle();

    const list = (await service.request('GET', `/api/executions?jobId=${jobId}`)).body;
    expect(list.map((e: { attempt: number; status: string }) => [e.attempt, e.status])).toEqual([
      [1, 'failed'],
      [0, 'failed'],
    ]);
    for (const summary of list) {
      const execution = await detail(summary.id);
      expect(execution.exitCode).toBe(3);
      expect(execution.stdout).toBe('a\u2400b\ufffd\ufffdc\ufffd');
      expect(execution.stderr.endsWith('x\u2400')).toBe(true);
      expect(execution.stderr).not.toContain('could not be stored');
    }
    const { rows } = await service.db.pool.query(
      "SELECT count(*)::int AS n FROM executions WHERE status = 'running'",
    );
    expect(rows[0].n).toBe(0);
    expect(sample(await metrics(), 'service_executions_total{status="failed"}')).toBe(before + 2);

    // One alert per run, for its final attempt, with the output as recorded.
    const [alert] = await eventually(async () => receiver.to('/hook').length > 0 && receiver.to('/hook'));
    expect(alert!.json.execution).toMatchObject({
      attempt: 1,
      exitCode: 3,
      stdoutTail: 'a\u2400b\ufffd\ufffdc\ufffd',
    });
  });

  it('still records an attempt, counted and retried, when the database refuses its output', async () => {
    // Stands for any output the database cannot take that storableText does not know about.
    await service.db.pool.query(`
      CREATE FUNCTION refuse_poison() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.stdout LIKE '%poison%' THEN RAISE EXCEPTION 'output refused' USING ERRCODE = '22021'; END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER refuse_poison BEFORE INSERT OR UPDATE ON executions
        FOR EACH ROW EXECUTE FUNCTION refuse_poison();`);
    const created = await service.request('POST', '/api/jobs', {
      name: 'refused-output',
      schedule: '@daily',
      command: 'echo poison; exit 1',
      retry: { maxAttempts: 1, baseDelay: 0 },
    });
    const jobId = created.body.id;
    await service.request('POST', `/api/jobs/${jobId}/run`);
    await service.local.idle();

    const list = (await service.request('GET', `/api/executions?jobId=${jobId}`)).body;
    expect(list.map((e: { attempt: number; status: string }) => [e.attempt, e.status])).toEqual([
      [1, 'failed'],
      [0, 'failed'],
    ]);
    const execution = await detail(list[0].id);
    expect(execution).toMatchObject({ exitCode: 1, stdout: '' });
    expect(execution.stderr).toContain('could not be stored (database error 22021)');
    const { rows } = await service.db.pool.query(
      "SELECT count(*)::int AS n FROM executions WHERE status = 'running'",
    );
    expect(rows[0].n).toBe(0);
    expect(service.logger.lines.some((line) => String(line.msg).includes('recording it without'))).toBe(true);
  });
});
