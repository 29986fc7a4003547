import { TailBuffer } from '../../src/runner/tailBuffer';
import { retryDelaySeconds, totalAttempts } from '../../src/runner/retry';

describe('TailBuffer', () => {
  it('keeps everything under the limit', () => {
    const buffer = new TailBuffer(100);
    buffer.push(Buffer.from('hello '));
    buffer.push(Buffer.from('world'));
    expect(buffer.text()).toBe('hello world');
  });

  it('keeps the tail and says how much was dropped', () => {
    const buffer = new TailBuffer(10);
    for (let i = 0; i < 100; i++) buffer.push(Buffer.from(`${i % 10}`));
    expect(buffer.text()).toBe('[... 90 bytes of earlier output dropped ...]\n0123456789');
  });

  it('never starts the tail inside a multi-byte character', () => {
    const buffer = new TailBuffer(5);
    buffer.push(Buffer.from('ééé')); // 6 bytes: the cut falls inside the first é
    expect(buffer.text()).toBe('[... 2 bytes of earlier output dropped ...]\néé');
  });
});

describe('retry policy', () => {
  it('waits base * 2^(n-1) seconds before attempt n, capped at five minutes', () => {
    expect([0, 1, 2, 3, 4].map((n) => retryDelaySeconds(10, n))).toEqual([0, 10, 20, 40, 80]);
    expect(retryDelaySeconds(100, 5)).toBe(300);
  });

  it('makes one attempt plus maxAttempts retries', () => {
    expect(totalAttempts(null)).toBe(1);
    expect(totalAttempts({ maxAttempts: 3 })).toBe(4);
  });
});
