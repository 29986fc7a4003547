/**
 * Requests that reach the service while it starts (its port is taken before it leads) wait for the
 * start, then go through; once it has started they go through at once, in the same turn.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startGate } from '../../src/http/startGate';

const req = {} as IncomingMessage;
const res = {} as ServerResponse;
const toApp = () => undefined;

describe('the start gate', () => {
  it('holds requests until the start is done, then lets them through in order', async () => {
    const gate = startGate();
    const handled: string[] = [];
    const first = gate.hold(() => handled.push('first'));
    const second = gate.hold(() => handled.push('second'));
    first(req, res, toApp);
    second(req, res, toApp);
    await new Promise((resolve) => setImmediate(resolve));
    expect(handled).toEqual([]);

    gate.open();
    await new Promise((resolve) => setImmediate(resolve));
    expect(handled).toEqual(['first', 'second']);
  });

  it('lets a request through in the same turn once open', () => {
    const gate = startGate();
    const handled: string[] = [];
    const handler = gate.hold(() => handled.push('now'));
    gate.open();
    handler(req, res, toApp);
    expect(handled).toEqual(['now']);
  });
});
