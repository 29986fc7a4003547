import fc from 'fast-check';
import { textOfHtml, textOfHtmlInTurns } from '../../src/mailbox/messages/htmlText';

const DEPTH = 200_000;
const deepHtml = (depth: number) => '<div>'.repeat(depth) + 'deep' + '</div>'.repeat(depth);

const SAMPLE =
  '<html><head><title>t</title><style>p{}</style></head><body><p>Hello&nbsp;<b>Bob</b> &amp; co</p>' +
  '<script>alert(1)</script><!-- note --><div>Line&#160;2<br>Line 3 &#x1F600; &unknown;</div>' +
  '<p>\t spaced \r\n\n\n\n out </p><br class="x"><br/>last &lt;tag&gt;</body></html>';

/**
 * The text of an HTML body in time linear in its length, whatever it holds (issue 38). Each input
 * below took a quadratic converter tens of seconds to minutes (200,000 unclosed comments alone:
 * about 25 s for 80,000 of them); linear, each takes milliseconds, far inside a test's time.
 */
describe('text of an HTML body', () => {
  it('drops markup, scripts and styles, decodes entities and keeps line structure', () => {
    expect(textOfHtml(SAMPLE)).toBe(
      'Hello Bob & co\nLine 2\nLine 3 😀 &unknown;\nspaced \r\n\nout\n\nlast <tag>',
    );
  });

  it('reads a `<` that opens no tag as text, as HTML does', () => {
    expect(textOfHtml('<p>1 < 2 and 3 <4</p><<br>x')).toBe('1 < 2 and 3 <4\n<\nx');
  });

  it('reads well-formed HTML as the regular expressions it replaces did', () => {
    const atoms = [
      ...['<div>', '</div>', '<p class="a">', '</p>', '<br>', '<br/>', '<b>', '</b>', '<li>', '</li >'],
      ...['<!-- c -->', '<script>x</script>', '<style>p{}</style >', '<head><title>t</title></head>'],
      ...['&amp;', '&#160;', '&#x41;', '&nbsp;', '&bogus;', '&lt;', '&gt;', '&', ';'],
      ...[' ', '\t', '\n', '\r', '\u00a0', 'a', 'é', 'x y', '😀'],
    ];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...atoms), { maxLength: 40 }), (parts) => {
        const html = parts.join('');
        expect(textOfHtml(html)).toBe(regexTextOfHtml(html));
      }),
      { numRuns: 2_000 },
    );
  });

  it.each([
    ['200,000 nested <div>s', deepHtml(DEPTH), 'deep'],
    ['200,000 unclosed comments', '<!--'.repeat(DEPTH) + 'x', '<!--'.repeat(DEPTH) + 'x'],
    ['200,000 unclosed scripts', '<script>'.repeat(DEPTH) + 'x', 'x'],
    ['1,000,000 lone <', '<'.repeat(5 * DEPTH), '<'.repeat(5 * DEPTH)],
    ['200,000 tags never closed', '<a x="1" '.repeat(DEPTH), '<a x="1" '.repeat(DEPTH).trim()],
    ['200,000 entities never ended', '&#x1'.repeat(DEPTH), '&#x1'.repeat(DEPTH)],
    ['200,000 blank lines', ' \n'.repeat(DEPTH) + 'x' + '<br>'.repeat(DEPTH) + 'y', 'x\n\ny'],
  ])('reads %s in one linear pass', (_name, html, text) => {
    expect(textOfHtml(html)).toBe(text);
  });

  it('gives the same text however its steps cut the HTML', async () => {
    const expected = textOfHtml(SAMPLE);
    for (let perTurn = 1; perTurn <= 12; perTurn++) {
      expect(await textOfHtmlInTurns(SAMPLE, perTurn)).toBe(expected);
    }
  });

  it('lets the event loop run between its steps, so a big body never holds the service', async () => {
    const html = deepHtml(DEPTH);
    const perTurn = 64 * 1024;
    let turnsSeen = 0;
    let converting = true;
    const count = () => {
      turnsSeen++;
      if (converting) setImmediate(count);
    };
    setImmediate(count);
    const text = await textOfHtmlInTurns(html, perTurn);
    converting = false;
    expect(text).toBe('deep');
    // One step per 64 Ki characters: the loop ran between every two of them.
    expect(turnsSeen).toBeGreaterThanOrEqual(Math.floor(html.length / perTurn) - 1);
  });
});

/**
 * The converter this one replaced (a chain of regular expressions, quadratic on unclosed comments,
 * scripts and tags): the oracle for well-formed HTML, where both must read the same text.
 */
function regexTextOfHtml(html: string): string {
  const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };
  const decode = (entity: string, name: string) => {
    if (!name.startsWith('#')) return entities[name.toLowerCase()] ?? entity;
    const code =
      name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
  };
  return html
    .replace(/<(script|style|head)\b[\s\S]*?<\/\1\s*>/gi, '')
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<br\s*\/?>|<\/(p|div|li|tr|h[1-6]|blockquote|pre|table)\s*>/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, decode)
    .replace(/[ \t\f\v\u00a0]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
