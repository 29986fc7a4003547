import { forwardSearch } from '../../src/mailbox/messages/forwardSearch';

/**
 * What keeps the HTML-to-text conversion linear (issue 38): asked what closes a construct at every
 * position of a text, the search looks at each character once, not once per position.
 */
describe('a forward search', () => {
  /** The searches made while `ask` runs, each as the position it started from and where it stopped. */
  function searchesDuring(text: string, ask: () => void): { from: number; to: number }[] {
    const searches: { from: number; to: number }[] = [];
    const exec = RegExp.prototype.exec;
    const spy = jest.spyOn(RegExp.prototype, 'exec').mockImplementation(function (
      this: RegExp,
      input: string,
    ) {
      const from = this.lastIndex;
      const match = exec.call(this, input);
      if (input === text) searches.push({ from, to: match ? match.index + match[0].length : text.length });
      return match;
    });
    try {
      ask();
    } finally {
      spy.mockRestore();
    }
    return searches;
  }

  it('searches once per occurrence, and once more to find there is none, however often it is asked', () => {
    const text = '<div>'.repeat(1_000) + 'x'.repeat(10_000);
    const next = forwardSearch(text, />/);
    const answers: (number | null)[] = [];
    const searches = searchesDuring(text, () => {
      for (let at = 0; at < text.length; at++) answers.push(next(at)?.start ?? null);
    });
    expect(searches).toHaveLength(1_000 + 1);
    // Each starts where the last stopped: together they read the text once.
    expect(searches.reduce((sum, { from, to }) => sum + (to - from), 0)).toBeLessThanOrEqual(text.length);
    expect(answers[0]).toBe(4);
    expect(answers[5]).toBe(9);
    expect(answers[text.length - 1]).toBeNull();
  });

  it('answers an unclosed construct asked about at every position with one search', () => {
    const text = '<!--'.repeat(20_000);
    const next = forwardSearch(text, /-->/);
    const searches = searchesDuring(text, () => {
      for (let at = 0; at < text.length; at += 4) expect(next(at + 4)).toBeNull();
    });
    expect(searches).toHaveLength(1);
  });

  it('finds a case-insensitive pattern where it is, from any later position', () => {
    const text = 'a</SCRIPT >b</script>';
    const next = forwardSearch(text, /<\/script\s*>/i);
    expect(next(0)).toEqual({ start: 1, end: 11 });
    expect(next(1)).toEqual({ start: 1, end: 11 });
    expect(next(2)).toEqual({ start: 12, end: 21 });
    expect(next(13)).toBeNull();
  });
});
