/**
 * A job body's unknown fields are refused by name, the names every object inherits included:
 * `constructor`, `toString`, `__proto__` are no more job fields than `bogus` is.
 */
import { startTestService, type TestService } from '../support/service';

const VALID = { name: 'fields', schedule: '@daily', command: 'true' };
const INHERITED = ['constructor', 'toString', 'valueOf', 'hasOwnProperty', '__proto__'];

/** The body as a client sends it: JSON text, so that `__proto__` is an own key as JSON.parse makes it. */
const bodyWith = (name: string, job: object = VALID) =>
  JSON.stringify(job).replace(/}$/, `,"${name}":{"x":1}}`);

describe('unknown job fields', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service.stop());

  it.each(['bogus', ...INHERITED])('refuses %s on create, naming it', async (name) => {
    const answer = await service.request('POST', '/api/jobs', bodyWith(name));
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error: `${name}: is not a job field` });
  });

  it.each(INHERITED)('refuses %s on replace, naming it, and leaves the job as it was', async (name) => {
    const created = await service.request('POST', '/api/jobs', { ...VALID, name: `replaced-${name}` });
    expect(created.status).toBe(201);
    const job = created.body;
    const answer = await service.request(
      'PUT',
      `/api/jobs/${job.id}`,
      bodyWith(name, { ...VALID, name: job.name, command: 'echo changed' }),
    );
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error: `${name}: is not a job field` });
    expect((await service.request('GET', `/api/jobs/${job.id}`)).body.command).toBe('true');
  });

  it('still takes a job as the service returned it (its read-only fields are ignored)', async () => {
    const created = (await service.request('POST', '/api/jobs', { ...VALID, name: 'round-trip' })).body;
    const answer = await service.request('PUT', `/api/jobs/${created.id}`, {
      ...created,
      command: 'echo again',
    });
    expect(answer).toMatchObject({ status: 200, body: { command: 'echo again' } });
  });
});
