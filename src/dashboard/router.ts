import path from 'node:path';
import express, { type RequestHandler, Router } from 'express';

/**
 * The browser files. tsc does not copy them into dist/, so the path is taken from the package root:
 * two levels up is the root both from src/dashboard (tests) and from dist/dashboard (`npm start`).
 */
export const DASHBOARD_ASSETS_DIR = path.join(__dirname, '..', '..', 'src', 'dashboard', 'assets');

/**
 * Everything the page loads comes from this origin; nothing inline, no framing. `connect-src 'self'`
 * also keeps a bug in the page from sending the API token anywhere else.
 */
const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const securityHeaders: RequestHandler = (_req, res, next) => {
  res.set({
    'Content-Security-Policy': DASHBOARD_CSP,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
  });
  next();
};

/**
 * The web dashboard: the page at `/` and its files under `/assets/`. File names carry no content
 * hash, so the browser revalidates every time (`no-cache` with an ETag): a new version of the
 * service is picked up on the next load, and an unchanged file costs a 304. Every URL the page and
 * this router use is relative to the page, so that it works at `/` and behind a proxy that serves
 * it under a path prefix and strips it (docs/dashboard.md).
 */
export function dashboardRouter(assetsDir: string = DASHBOARD_ASSETS_DIR): Router {
  const router = Router();
  // serve-static, also for the page itself: res.sendFile would follow the app's `etag` setting,
  // which is off for the API.
  const assets = express.static(assetsDir, {
    etag: true,
    lastModified: true,
    cacheControl: false,
    dotfiles: 'ignore',
    index: false,
    redirect: false,
    fallthrough: true,
    setHeaders: (res) => res.setHeader('Cache-Control', 'no-cache'),
  });

  router.get(['/', '/index.html'], securityHeaders, (req, res, next) => {
    req.url = '/index.html';
    assets(req, res, next);
  });

  router.use('/assets', securityHeaders, assets, (_req, res) => {
    res.status(404).type('text/plain').send('not found');
  });

  // Browsers ask for this on their own; answer with the page's icon instead of a 404 in the log.
  // Relative, as every URL of the dashboard: behind a prefix-stripping proxy the icon is beside it.
  router.get('/favicon.ico', (_req, res) => res.redirect(301, 'assets/favicon.svg'));

  return router;
}
