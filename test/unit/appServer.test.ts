import type { AddressInfo } from 'node:net';
import type { IncomingMessage, Server } from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import { createAppServer } from '../../src/http/server';

describe('createAppServer', () => {
  let server: Server;
  let baseUrl: string;
  const prototypesOnArrival: object[] = [];
  const app = express();

  beforeAll(async () => {
    app.use(express.json());
    app.get('/echo', (req: Request, res: Response) => {
      res.status(203).json({
        header: req.get('x-probe'),
        query: req.query,
        sameApp: req.app === app && res.app === app,
        requestPrototype: Object.getPrototypeOf(req) === app.request,
        responsePrototype: Object.getPrototypeOf(res) === app.response,
      });
    });
    app.post('/body', (req: Request, res: Response) => res.json({ got: req.body as unknown }));
    app.get('/fails', (_req: Request, _res: Response, next: NextFunction) => next(new Error('boom')));
    app.use((error: Error, _req: Request, res: Response, _next: NextFunction) => {
      res.status(500).json({ error: error.message });
    });

    server = createAppServer(app);
    // Runs before Express: what Node built, before Express could set any prototype.
    server.prependListener('request', (req: IncomingMessage) =>
      prototypesOnArrival.push(Object.getPrototypeOf(req)),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('serves requests with Express methods and the app on both objects', async () => {
    const response = await fetch(`${baseUrl}/echo?a=1&b=two`, { headers: { 'x-probe': 'yes' } });
    expect(response.status).toBe(203);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({
      header: 'yes',
      query: { a: '1', b: 'two' },
      sameApp: true,
      requestPrototype: true,
      responsePrototype: true,
    });
  });

  it('builds requests with the app prototype already in place, so Express changes nothing', async () => {
    prototypesOnArrival.length = 0;
    await (await fetch(`${baseUrl}/echo`)).arrayBuffer();
    expect(prototypesOnArrival).toEqual([app.request]);
  });

  it('parses bodies and reaches error middleware as a plain Express server does', async () => {
    const posted = await fetch(`${baseUrl}/body`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ n: 1 }),
    });
    expect(await posted.json()).toEqual({ got: { n: 1 } });

    const failed = await fetch(`${baseUrl}/fails`);
    expect(failed.status).toBe(500);
    expect(await failed.json()).toEqual({ error: 'boom' });
  });
});
