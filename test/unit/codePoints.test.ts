import fc from 'fast-check';
import { countCodePoints, firstCodePoints, lastCodePoints } from '../../src/domain/codePoints';

describe('code points', () => {
  it('count, take from the front and from the back without cutting a surrogate pair', () => {
    expect(countCodePoints('a😀b')).toBe(3);
    expect(firstCodePoints('a😀b', 2)).toBe('a😀');
    expect(lastCodePoints('a😀b', 2)).toBe('😀b');
    expect(firstCodePoints('ab', 5)).toBe('ab');
    expect(lastCodePoints('ab', 0)).toBe('');
  });

  it('agree with Array.from for any text, lone surrogates included', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), fc.nat(70), (text, n) => {
        const points = Array.from(text);
        expect(countCodePoints(text)).toBe(points.length);
        expect(firstCodePoints(text, n)).toBe(points.slice(0, n).join(''));
        expect(lastCodePoints(text, n)).toBe(n === 0 ? '' : points.slice(-n).join(''));
      }),
      { numRuns: 500 },
    );
  });
});
