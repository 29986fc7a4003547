/**
 * What a listening server survives is logged, not thrown, and not once per connection: a failure
 * to accept (EMFILE where libuv's reserve descriptor is spent) no longer ends the process as an
 * unhandled 'error', and a flood of dropped connections makes a line a minute, not a line each.
 */
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { reportConnectionTrouble } from '../../src/http/connectionTrouble';
import { createMemoryLogger } from '../support/memoryLogger';
import { eventually } from '../support/service';

describe('reportConnectionTrouble', () => {
  let server: Server;
  beforeEach(async () => {
    server = createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('logs an accept failure instead of letting it end the process', () => {
    const logger = createMemoryLogger();
    const reporting = reportConnectionTrouble(server, logger);
    const failure = Object.assign(new Error('accept EMFILE'), { code: 'EMFILE', syscall: 'accept' });
    // Without a listener, this emit would throw (and, from the event loop, end the process).
    expect(() => server.emit('error', failure)).not.toThrow();
    expect(logger.lines).toEqual([
      expect.objectContaining({
        level: 'error',
        msg: 'could not accept connections',
        failures: 1,
        err: expect.objectContaining({ message: 'accept EMFILE' }) as object,
      }),
    ]);
    reporting.stop();
  });

  it('logs the first connection dropped at the limit at once, and those after it together', async () => {
    const logger = createMemoryLogger();
    const reporting = reportConnectionTrouble(server, logger, 200);
    server.maxConnections = 1;
    const port = (server.address() as AddressInfo).port;
    const held = connect(port, '127.0.0.1');
    await new Promise((resolve) => held.once('connect', resolve));
    await eventually(async () => (await connectionCount(server)) === 1);
    const dropped = Array.from({ length: 5 }, () => connect(port, '127.0.0.1').on('error', () => undefined));
    await Promise.all(dropped.map((socket) => new Promise((resolve) => socket.once('close', resolve))));

    const drops = () =>
      logger.lines.filter((line) => String(line.msg).startsWith('connection limit reached'));
    const summary = await eventually(async () => (drops().length === 2 ? drops() : null));
    expect(summary).toEqual([
      expect.objectContaining({ level: 'warn', maxConnections: 1, dropped: 1 }),
      expect.objectContaining({ level: 'warn', maxConnections: 1, dropped: 4 }),
    ]);
    held.destroy();
    reporting.stop();
  });
});

function connectionCount(server: Server): Promise<number> {
  return new Promise((resolve, reject) =>
    server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
  );
}
