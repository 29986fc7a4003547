import fc from 'fast-check';
import { z } from 'zod';
import { storableText, textSchema } from '../../src/domain/text';

describe('storableText', () => {
  it('shows NUL as ␀ and a lone surrogate as U+FFFD, and keeps everything else', () => {
    expect(storableText('a\u0000b')).toBe('a\u2400b');
    expect(storableText('x\ud800y\udc00z')).toBe('x\ufffdy\ufffdz');
    expect(storableText('pair \ud83d\ude00 kept')).toBe('pair \ud83d\ude00 kept');
    expect(storableText('\udc00\ud800')).toBe('\ufffd\ufffd');
  });

  it('gives text with no NUL and well-formed UTF-16, unchanged when it already was', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (value) => {
        const stored = storableText(value);
        expect(stored).not.toContain('\u0000');
        expect(Buffer.from(stored, 'utf8').toString('utf8')).toBe(stored);
        if (!value.includes('\u0000') && Buffer.from(value, 'utf8').toString('utf8') === value) {
          expect(stored).toBe(value);
        }
      }),
    );
  });
});

describe('textSchema', () => {
  const schema = z.object({ command: textSchema().max(10) });
  const message = (input: unknown) => schema.safeParse(input).error?.issues[0]?.message;
  it('refuses NUL, naming what is wrong, and writes a lone surrogate as U+FFFD', () => {
    expect(message({ command: 'a\u0000' })).toBe('must not contain NUL characters');
    expect(message({ command: 42 })).toBe('must be a string');
    expect(message({ command: 'x'.repeat(11) })).toBeDefined();
    expect(schema.parse({ command: 'a\ud800' })).toEqual({ command: 'a\ufffd' });
    expect(schema.parse({ command: 'ok \ud83d\ude00' })).toEqual({ command: 'ok \ud83d\ude00' });
  });
});
