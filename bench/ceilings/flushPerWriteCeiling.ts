import { closeSync, fdatasyncSync, openSync, writeSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { announcePort, readCeilingResponse } from './response';

/**
 * The bar for a durable write: a bare `node:http` server that stores each request's body as a
 * store that flushes every write does (SQLite in its default `synchronous=FULL`, as cronbase runs
 * it): one writer at a time, each write appended to a file and flushed to the disk (`fdatasync`)
 * before it is answered. It answers the prepared bytes. `CEILING_DATA_DIR` is where its file goes,
 * on the disk that the database's files are on.
 */
const response = readCeilingResponse();
const file = openSync(join(process.env.CEILING_DATA_DIR ?? '.', 'flush-per-write.log'), 'a');
let writing: Promise<void> = Promise.resolve();

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    // One write and its flush after another, as one write transaction at a time.
    writing = writing.then(() => {
      writeSync(file, Buffer.concat([...chunks, Buffer.from('\n')]));
      fdatasyncSync(file);
      res.writeHead(response.status, {
        'Content-Type': response.contentType,
        'Content-Length': response.body.length,
      });
      res.end(response.body);
    });
  });
});
server.listen(0, '127.0.0.1', () => announcePort((server.address() as AddressInfo).port));
process.on('SIGTERM', () => {
  closeSync(file);
  process.exit(0);
});
