import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { announcePort, readCeilingResponse } from './response';

/**
 * The upper bound of any Node HTTP service on this machine: a bare `node:http` server that answers
 * every request with the prepared bytes, doing no routing and no parsing.
 */
const response = readCeilingResponse();
const server = createServer((_req, res) => {
  res.writeHead(response.status, {
    'Content-Type': response.contentType,
    'Content-Length': response.body.length,
  });
  res.end(response.body);
});
server.listen(0, '127.0.0.1', () => announcePort((server.address() as AddressInfo).port));
process.on('SIGTERM', () => process.exit(0));
