import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { DASHBOARD_ASSETS_DIR } from '../../src/dashboard/router';
import { startTestService, type TestService } from '../support/service';

function assetFiles(dir = DASHBOARD_ASSETS_DIR): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    return statSync(file).isDirectory() ? assetFiles(file) : [file];
  });
}

describe('dashboard assets', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(async () => {
    await service.stop();
  });

  it('serves the page at / with a strict CSP and revalidating caching', async () => {
    const page = await service.request('GET', '/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(page.headers.get('etag')).toBeTruthy();
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.text).toContain('<script type="module" src="assets/js/main.js"></script>');

    // fetch adds `Cache-Control: no-cache` to a conditional request unless one is given.
    const again = await service.request('GET', '/', undefined, {
      'if-none-match': page.headers.get('etag')!,
      'cache-control': 'max-age=0',
    });
    expect(again.status).toBe(304);
  });

  it.each([
    ['/assets/app.css', /^text\/css/],
    ['/assets/js/main.js', /^(text|application)\/javascript/],
    ['/assets/favicon.svg', /^image\/svg\+xml/],
  ])('serves %s with its content type', async (file, type) => {
    const response = await service.request('GET', file);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(type);
    expect(response.headers.get('content-security-policy')).toBeTruthy();
  });

  it('answers 404 for a missing asset, and the API still answers JSON', async () => {
    expect((await service.request('GET', '/assets/nope.js')).status).toBe(404);
    const traversal = await service.request('GET', '/assets/..%2frouter.ts');
    expect(traversal.status).toBe(404);
    expect(traversal.text).not.toContain('dashboardRouter');
    const api = await service.request('GET', '/api/nope');
    expect(api.status).toBe(404);
    expect(api.body).toEqual({ error: expect.any(String) });
  });

  it('stays small and loads nothing from other origins', () => {
    const files = assetFiles();
    const totalBytes = files.reduce((sum, file) => sum + statSync(file).size, 0);
    expect(totalBytes).toBeLessThan(200 * 1024);
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      // Anything that would make the browser fetch from elsewhere: src/href attributes, CSS url()
      // and @import, module imports, fetch calls with an absolute or protocol-relative URL.
      const references = text.match(
        /(?:\b(?:src|href|action)\s*=\s*["']?|url\(\s*["']?|@import\s+["']?|\bfrom\s+["']|import\(\s*["']|fetch\(\s*["'`])(?:[a-z]+:)?\/\/[^"'`)\s]*/gi,
      );
      expect({ file, references }).toEqual({ file, references: null });
    }
  });

  it('uses only URLs relative to the page, which work behind a path prefix too (pathPrefix.test.ts)', async () => {
    for (const file of assetFiles().filter((name) => /\.(html|js|css)$/.test(name))) {
      const text = readFileSync(file, 'utf8');
      // A path from the root: in an attribute, a CSS url(), or a request of api.js (`request('GET', '/…`).
      const rooted = text.match(
        /(?:\b(?:src|href|action)\s*=\s*["']?|url\(\s*["']?|\brequest\(\s*'[A-Z]+',\s*["'`]|fetch\(\s*["'`])\/(?!\/)[^"'`)\s]*/g,
      );
      expect({ file, rooted }).toEqual({ file, rooted: null });
    }
    const icon = await fetch(`${service.url}/favicon.ico`, { redirect: 'manual' });
    expect([icon.status, icon.headers.get('location')]).toEqual([301, 'assets/favicon.svg']);
  });

  it('never turns data into markup: no HTML parsing sinks in the page scripts', () => {
    for (const file of assetFiles().filter((name) => name.endsWith('.js'))) {
      const code = readFileSync(file, 'utf8');
      expect({
        file,
        sinks: code.match(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function/g),
      }).toEqual({
        file,
        sinks: null,
      });
    }
    const html = readFileSync(path.join(DASHBOARD_ASSETS_DIR, 'index.html'), 'utf8');
    // No inline script or style: the CSP forbids them.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i);
  });
});
