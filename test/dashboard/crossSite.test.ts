import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { eventually, startTestService, type TestService } from '../support/service';
import { BROWSER_TEST_TIMEOUT_MS, describeInBrowser, launchBrowser } from './browser';

jest.setTimeout(BROWSER_TEST_TIMEOUT_MS);

/**
 * What a real browser lets other sites do to a service without SERVICE_API_TOKEN. The browser
 * resolves `attacker.example` to 127.0.0.1 (`--host-resolver-rules`), as an attacker's DNS would:
 * its pages are a site elsewhere, and with the service's port, a name rebound to the service.
 */
const ATTACKER = 'attacker.example';

/** What a page's script saw of a request: its status, or that the browser refused it (a TypeError). */
interface Seen {
  status?: number;
  type?: string;
  refused?: string;
}

describeInBrowser('a service without an API token, in a browser that visits other sites', () => {
  let service: TestService;
  let browser: Browser;
  let site: Server;
  let sitePort: number;
  let servicePort: string;
  let context: BrowserContext;
  let jobId: number;

  beforeAll(async () => {
    [service, browser] = await Promise.all([
      startTestService(),
      launchBrowser([`--host-resolver-rules=MAP ${ATTACKER} 127.0.0.1`]),
    ]);
    servicePort = new URL(service.url).port;
    // Any site: a blank page for the scripts to run in.
    site = createServer((_req, res) =>
      res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html>'),
    );
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    sitePort = (site.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => site?.close(resolve));
    await service?.stop();
  });
  beforeEach(async () => {
    await service.db.pool.query('DELETE FROM executions');
    await service.db.pool.query('DELETE FROM jobs');
    const created = await service.request('POST', '/api/jobs', {
      name: 'target',
      schedule: '@yearly',
      command: 'true',
    });
    jobId = created.body.id as number;
    context = await browser.newContext();
  });
  afterEach(async () => {
    await context?.close();
  });

  const jobNames = async () =>
    (await service.db.pool.query('SELECT name FROM jobs ORDER BY id')).rows.map((r) => r.name);
  const executionCount = async () =>
    Number((await service.db.pool.query('SELECT count(*) FROM executions')).rows[0].count);

  /** Opens `url` and, in the page, POSTs to the service: the job's run (simple) and a creation (JSON). */
  async function attackFrom(url: string, api: string): Promise<{ page: Page; run: Seen; create: Seen }> {
    const page = await context.newPage();
    await page.goto(url);
    const [run, create] = await page.evaluate(
      async ({ api, jobId }) => {
        const seen = async (request: Promise<{ status: number; type: string }>) => {
          try {
            const response = await request;
            return { status: response.status, type: response.type };
          } catch (error) {
            return { refused: String(error) };
          }
        };
        return [
          // A simple request: no preflight, sent whatever CORS says; the page just cannot read it.
          await seen(fetch(`${api}/api/jobs/${jobId}/run`, { method: 'POST', mode: 'no-cors' })),
          await seen(
            fetch(`${api}/api/jobs`, {
              method: 'POST',
              headers: { 'Content-Type': 'application/json' },
              body: JSON.stringify({ name: 'planted', schedule: '* * * * *', command: 'echo planted' }),
            }),
          ),
        ];
      },
      { api, jobId },
    );
    return { page, run, create };
  }

  it('keeps a page on another site from running a job or creating one', async () => {
    const { run, create } = await attackFrom(`http://${ATTACKER}:${sitePort}/`, service.url);
    // Had it run, its execution would be recorded by now (the page on this machine's run below is).
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await executionCount()).toBe(0);
    expect(await jobNames()).toEqual(['target']);
    // The run was sent (opaquely: the page cannot read the refusal); the creation's preflight refused.
    expect(run).toEqual({ status: 0, type: 'opaque' });
    expect(create.refused).toMatch(/TypeError/);
    expect(service.logger.lines).toContainEqual(
      expect.objectContaining({
        msg: 'refused a request from another site',
        origin: `http://${ATTACKER}:${sitePort}`,
      }),
    );
  });

  it('keeps a page of a name rebound to the service (DNS rebinding) from using it', async () => {
    const rebound = `http://${ATTACKER}:${servicePort}`;
    // Same origin as far as the browser knows: nothing stops these requests but the service.
    const { run, create } = await attackFrom(`${rebound}/`, rebound);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await executionCount()).toBe(0);
    expect(await jobNames()).toEqual(['target']);
    expect(run).toEqual({ status: 403, type: 'basic' });
    expect(create).toEqual({ status: 403, type: 'basic' });
    // Nor can it read the dashboard (or anything else) through that name.
    const page = await context.newPage();
    const dashboard = await page.goto(`${rebound}/`);
    expect(dashboard?.status()).toBe(403);
    expect(await page.textContent('body')).toContain('set SERVICE_API_TOKEN');
  });

  it('lets a page on this machine, on another port, use the API', async () => {
    const { run, create } = await attackFrom(`http://localhost:${sitePort}/`, service.url);
    expect(run).toEqual({ status: 0, type: 'opaque' });
    expect(create).toEqual({ status: 201, type: 'cors' });
    await eventually(async () => (await executionCount()) === 1);
    expect(await jobNames()).toEqual(['target', 'planted']);
  });
});
