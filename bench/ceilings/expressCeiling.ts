import type { AddressInfo } from 'node:net';
import express from 'express';
import { announcePort, readCeilingResponse } from './response';

/**
 * The bar for an Express endpoint: a minimal Express 5 app with one route that answers the
 * prepared bytes. Settings match the service's app (no ETag, no X-Powered-By), so the only
 * difference left is the service's own work per request: middleware, validation, SQL, JSON.
 */
const response = readCeilingResponse();
const app = express();
app.disable('x-powered-by');
app.set('etag', false);
// One route, whatever the method of the endpoint under test.
app.all(response.path, (_req, res) => {
  res.status(response.status).setHeader('Content-Type', response.contentType);
  res.send(response.body);
});
const server = app.listen(0, '127.0.0.1', () => announcePort((server.address() as AddressInfo).port));
process.on('SIGTERM', () => process.exit(0));
