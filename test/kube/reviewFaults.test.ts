/**
 * Fault injection for the review endpoints only (reviewFaults.ts): a service that authenticates
 * and authorizes its callers through the API server must be testable with that part of the API
 * server slow or down while everything else answers.
 */
import { KubeEmulator } from '../support/kube/emulator';
import type { Obj } from '../support/kube/types';
import { call } from './authSupport';

const TOKEN_REVIEWS = '/apis/authentication.k8s.io/v1/tokenreviews';
const ACCESS_REVIEWS = '/apis/authorization.k8s.io/v1/subjectaccessreviews';
const accessReview = {
  spec: { user: 'x', resourceAttributes: { verb: 'get', group: 'crondeck.dev', resource: 'scheduledjobs' } },
};

/** Polls `condition` until it holds (generous deadline: the machine may be loaded). */
async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('review endpoint faults', () => {
  let emu: KubeEmulator;
  beforeEach(async () => {
    emu = await KubeEmulator.start();
  });
  afterEach(() => emu.stop());

  test('hold: a review gets no answer until released; other requests are answered meanwhile', async () => {
    emu.reviewFaults.set('hold');
    let settled = false;
    const pending = call(emu, 'POST', TOKEN_REVIEWS, { spec: { token: 'not-a-token' } }).finally(() => {
      settled = true;
    });
    await until(() => emu.reviewFaults.waiting() === 1, 'the review to be held');
    expect((await call(emu, 'GET', '/api/v1/namespaces')).status).toBe(200);
    expect(
      (await call(emu, 'POST', '/api/v1/namespaces', { metadata: { name: 'still-writable' } })).status,
    ).toBe(201);
    expect(settled).toBe(false);
    emu.reviewFaults.release();
    const answer = await pending;
    expect(answer.status).toBe(201);
    expect(answer.body.status).toEqual({ user: {}, error: 'invalid bearer token' });
    expect(emu.reviewFaults.waiting()).toBe(0);
  });

  test('a held review ends with the emulator: the client sees the connection close', async () => {
    emu.reviewFaults.set('hold');
    const pending = call(emu, 'POST', ACCESS_REVIEWS, accessReview);
    await until(() => emu.reviewFaults.waiting() === 1, 'the review to be held');
    await emu.stop();
    await expect(pending).rejects.toThrow();
  });

  test('reset: the connection drops without an answer', async () => {
    emu.reviewFaults.set('reset', { resources: ['subjectaccessreviews'] });
    await expect(call(emu, 'POST', ACCESS_REVIEWS, accessReview)).rejects.toThrow('fetch failed');
    // Only the named review kinds fail.
    expect((await call(emu, 'POST', TOKEN_REVIEWS, { spec: { token: 'x' } })).status).toBe(201);
  });

  test('timeout: the timeout filter’s 504 Status', async () => {
    emu.reviewFaults.set('timeout');
    const answer = await call(emu, 'POST', ACCESS_REVIEWS, accessReview);
    expect(answer.status).toBe(504);
    expect(answer.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Timeout: request did not complete within requested timeout - context deadline exceeded',
      reason: 'Timeout',
      details: {},
      code: 504,
    });
  });

  test('tooManyRequests: API Priority and Fairness’s plain-text 429 with Retry-After, for `count` requests', async () => {
    emu.reviewFaults.set('tooManyRequests', { count: 2, retryAfterSeconds: 3 });
    for (let i = 0; i < 2; i++) {
      const answer = await call(emu, 'POST', TOKEN_REVIEWS, { spec: { token: 'x' } });
      expect(answer.status).toBe(429);
      expect(answer.text).toBe('Too many requests, please try again later.\n');
      expect(answer.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(answer.headers.get('retry-after')).toBe('3');
    }
    expect((await call(emu, 'POST', TOKEN_REVIEWS, { spec: { token: 'x' } })).status).toBe(201);
  });

  test('clear: reviews are answered again; a fault never touches an unauthenticated caller’s 401', async () => {
    emu.reviewFaults.set('timeout');
    expect((await call(emu, 'POST', ACCESS_REVIEWS, accessReview, 'bad-token')).status).toBe(401);
    emu.reviewFaults.clear();
    const answer = await call(emu, 'POST', ACCESS_REVIEWS, accessReview);
    expect(answer.status).toBe(201);
    expect((answer.body.status as Obj).allowed).toBe(false);
  });
});
