/**
 * `node --expose-gc -r ./test/support/registerTypeScript.js test/support/sharedValuesHeapProbe.ts
 * apart|pooled`: builds 20,000 containers that hold one long image string each, parsed apart as
 * watch events bring them, and prints how much the heap grew to keep them (after full
 * collections), with the containers passed through SharedValues (`pooled`) or not (`apart`).
 * A process of its own for each, so that nothing else the test runner did moves the figure.
 */
import { getHeapStatistics } from 'node:v8';
import { SharedValues } from '../../src/controller/runtime/sharedValues';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
const pooled = process.argv[2] === 'pooled';
const pool = new SharedValues();
const image = `registry.example/team/${'worker-image-'.repeat(12)}:v1`;

gc();
const before = getHeapStatistics().used_heap_size;
// Each container's own long command keeps it from being shared whole: only its strings can be.
const kept = Array.from({ length: 20_000 }, (_, id) => {
  const container = JSON.parse(
    JSON.stringify({ image, command: ['sh', '-c', `${'echo tick; '.repeat(30)}${id}`] }),
  ) as object;
  return pooled ? pool.share(container) : container;
});
gc();
process.stdout.write(
  JSON.stringify({ grown: getHeapStatistics().used_heap_size - before, kept: kept.length }),
);
