import type { IncomingMessage } from 'node:http';
import { freshnessAsked } from '../../src/http/readFreshness';

const asked = (headers: Record<string, string>) => freshnessAsked({ headers } as IncomingMessage);

describe('freshnessAsked', () => {
  test('a read is recent unless it asks a cache to check with the origin', () => {
    expect(asked({})).toBe('recent');
    expect(asked({ 'cache-control': 'max-age=60' })).toBe('recent');
    expect(asked({ 'cache-control': 'no-store' })).toBe('recent');
    expect(asked({ 'cache-control': 'max-age=05' })).toBe('recent');
    expect(asked({ pragma: 'x-no-cache' })).toBe('recent');
  });

  test.each([
    ['cache-control', 'no-cache'],
    ['cache-control', 'No-Cache'],
    ['cache-control', 'max-age=0'],
    ['cache-control', 'max-age="0"'],
    ['cache-control', 'private, no-cache'],
    ['cache-control', 'no-cache , max-age=30'],
    ['cache-control', 'max-stale, max-age=00'],
    ['pragma', 'no-cache'],
  ])('%s: %s asks for a current read', (name, value) => {
    expect(asked({ [name]: value })).toBe('current');
  });

  test('a directive is matched whole, not inside another', () => {
    expect(asked({ 'cache-control': 'no-cache-please' })).toBe('recent');
    expect(asked({ 'cache-control': 'x-max-age=0' })).toBe('recent');
    expect(asked({ 'cache-control': 'max-age=0x' })).toBe('recent');
  });
});
