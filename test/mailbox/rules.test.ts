import fc from 'fast-check';
import {
  DEFAULT_RELATED_LIMIT,
  MAX_RELATED_LIMIT,
  parseLabelIds,
  relatedLimit,
} from '../../src/mailbox/filters/labelIdsRule';
import { textOfHtml } from '../../src/mailbox/messages/htmlText';
import { paginationShape } from '../../src/mailbox/shared/pagination';
import { PREVIEW_LENGTH, previewOf } from '../../src/mailbox/shared/preview';
import { z } from 'zod';

const codePoints = (text: string) => Array.from(text);
const spaces = fc.constantFrom('', ' ', '  ', '\t', '\u00a0');
const positiveId = fc.integer({ min: 1, max: 2147483647 });
/** Entries that are not positive integers once trimmed. */
const junk = fc.oneof(
  fc.constantFrom('', '0', '00', '-1', '+1', '1.5', '1e3', 'abc', '0x10', 'Infinity', '１'),
  fc.string().filter((s) => !/^[0-9]*$/.test(s.trim()) && !s.includes(',')),
);

describe('the ids rule of the label filters', () => {
  it('keeps exactly the positive integers, trimmed, distinct, in first-seen order', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            positiveId.map((id) => ({ id })),
            junk.map((text) => ({ text })),
          ),
        ),
        fc.array(spaces, { minLength: 2, maxLength: 2 }),
        (entries, [before, after]) => {
          const raw = entries.map((e) => ('id' in e ? `${before}${e.id}${after}` : e.text)).join(',');
          const expected = [...new Set(entries.flatMap((e) => ('id' in e ? [e.id] : [])))];
          expect(parseLabelIds(raw)).toEqual(expected);
        },
      ),
    );
  });

  it('never throws and only ever answers distinct positive integers', () => {
    fc.assert(
      fc.property(fc.string(), (raw) => {
        const ids = parseLabelIds(raw);
        expect(new Set(ids).size).toBe(ids.length);
        for (const id of ids) expect(Number.isInteger(id) && id >= 1).toBe(true);
      }),
    );
  });

  it('reads leading zeros as decimal and drops everything else', () => {
    expect(parseLabelIds(' 1 , x, -2, 0, 007,,2.5, 3 ')).toEqual([1, 7, 3]);
    expect(parseLabelIds('')).toEqual([]);
    expect(parseLabelIds(',,,')).toEqual([]);
  });
});

describe('the limit rule of the related-label endpoints', () => {
  it('always answers an integer from 1 to 20', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.double().map(String), fc.integer().map(String)), (raw) => {
        const limit = relatedLimit(raw);
        expect(Number.isInteger(limit) && limit >= 1 && limit <= MAX_RELATED_LIMIT).toBe(true);
      }),
    );
  });

  it('keeps integers from 1 to 20, clamps others, and reads 0 as the default', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e9, max: 1e9 }), spaces, (n, pad) => {
        const expected = n === 0 ? DEFAULT_RELATED_LIMIT : Math.min(MAX_RELATED_LIMIT, Math.max(1, n));
        expect(relatedLimit(`${pad}${n}${pad}`)).toBe(expected);
      }),
    );
  });

  it('reads a non-numeric value, or none, as 5', () => {
    fc.assert(
      fc.property(
        fc.string().filter((s) => Number.isNaN(Number(s.trim()))),
        (raw) => expect(relatedLimit(raw)).toBe(DEFAULT_RELATED_LIMIT),
      ),
    );
    for (const raw of [undefined, '', '  ', 'abc', '5abc', ['3'], '0', '-0', '0.0']) {
      expect(relatedLimit(raw)).toBe(DEFAULT_RELATED_LIMIT);
    }
  });

  it('clamps a fraction before it truncates it: only 0 itself is the default', () => {
    fc.assert(
      fc.property(fc.double({ min: -1, max: 1, noNaN: true }), (n) => {
        fc.pre(n !== 0);
        expect(relatedLimit(String(n))).toBe(1);
      }),
    );
    expect(relatedLimit('0.4')).toBe(1);
    expect(relatedLimit('-0.5')).toBe(1);
    expect(relatedLimit('7.9')).toBe(7);
    expect(relatedLimit('19.99')).toBe(19);
    expect(relatedLimit('20.5')).toBe(20);
    expect(relatedLimit('1e9')).toBe(20);
    expect(relatedLimit('-Infinity')).toBe(1);
  });
});

describe('pagination of message lists', () => {
  const schema = z.object(paginationShape);
  it('accepts exactly the limits 1..500 written in digits, 50 by default', () => {
    fc.assert(
      fc.property(fc.string(), (limit) => {
        const result = schema.safeParse({ limit });
        const valid = /^[0-9]+$/.test(limit) && Number(limit) >= 1 && Number(limit) <= 500;
        expect(result.success).toBe(valid);
        if (valid) expect(result.data!.limit).toBe(Number(limit));
      }),
    );
    fc.assert(
      fc.property(fc.integer({ min: -1000, max: 1000 }), (n) => {
        expect(schema.safeParse({ limit: String(n) }).success).toBe(n >= 1 && n <= 500);
      }),
    );
    expect(schema.parse({})).toEqual({ limit: 50, offset: 0 });
  });

  it('accepts exactly the non-negative offsets written in digits, 0 by default', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.integer().map(String)), (offset) => {
        const valid = /^[0-9]+$/.test(offset) && Number(offset) <= 2147483647;
        expect(schema.safeParse({ offset }).success).toBe(valid);
      }),
    );
  });
});

describe('previews', () => {
  it(`are the first ${PREVIEW_LENGTH} code points, never half a surrogate pair`, () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 600 }), (text) => {
        const preview = previewOf(text)!;
        expect(text.startsWith(preview)).toBe(true);
        expect(codePoints(preview)).toEqual(codePoints(text).slice(0, PREVIEW_LENGTH));
        // A well-formed text gives a well-formed preview: its last unit is not a lone high surrogate.
        const last = preview.charCodeAt(preview.length - 1);
        expect(last >= 0xd800 && last <= 0xdbff).toBe(false);
      }),
    );
  });

  it('count an emoji once, whatever its UTF-16 or UTF-8 length', () => {
    const emoji = '😀'.repeat(300);
    expect(previewOf(emoji)).toBe('😀'.repeat(200));
    expect(previewOf('a'.repeat(199) + '😀b')).toBe('a'.repeat(199) + '😀');
    expect(previewOf('é'.repeat(250))).toBe('é'.repeat(200));
    expect(previewOf('short')).toBe('short');
    expect(previewOf(null)).toBeNull();
  });

  it('keep a lone surrogate of the input as one code point', () => {
    const text = 'a'.repeat(199) + '\ud800' + 'b';
    expect(previewOf(text)).toBe('a'.repeat(199) + '\ud800');
  });
});

describe('text of an HTML body', () => {
  it('drops markup, scripts and styles, decodes entities and keeps line structure', () => {
    expect(
      textOfHtml(
        '<html><head><title>t</title><style>p{}</style></head><body><p>Hello&nbsp;<b>Bob</b> &amp; co</p>' +
          '<script>alert(1)</script><!-- note --><div>Line&#160;2<br>Line 3 &#x1F600; &unknown;</div></body></html>',
      ),
    ).toBe('Hello Bob & co\nLine 2\nLine 3 😀 &unknown;');
  });
});
