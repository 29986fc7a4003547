/** Where a pattern occurs: the first character and the one after the last. */
export interface Occurrence {
  start: number;
  end: number;
}

/**
 * Where `pattern` next occurs in `text` from a position on, for positions that only grow (a
 * left-to-right reader asking what closes the construct it is at). A search resumes where the last
 * one ended, and one that found nothing answers every later position: however many times it is
 * asked, it looks at each character of `text` once. Asked from a position before the last one, it
 * answers wrongly: it is not a general search.
 */
export function forwardSearch(text: string, pattern: RegExp): (from: number) => Occurrence | null {
  const global = new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, '') + 'g');
  let found: Occurrence | null | undefined;
  let searchedFrom = -1;
  return (from) => {
    if (found === null && from >= searchedFrom) return null;
    if (found && found.start >= from) return found;
    global.lastIndex = from;
    searchedFrom = from;
    const match = global.exec(text);
    found = match ? { start: match.index, end: match.index + match[0].length } : null;
    return found;
  };
}
