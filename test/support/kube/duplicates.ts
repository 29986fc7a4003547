/**
 * Paths of keys that appear twice in one JSON object (`spec.schedule`), which the real decoder
 * reports as `duplicate field` (14-dry-run #17, #21). A small scanner: JSON.parse keeps the last.
 */
export function duplicateFields(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  const ws = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const str = (): string => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (path: string): void => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const seen = new Set<string>();
      ws();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        ws();
        const key = str();
        const p = path ? `${path}.${key}` : key;
        if (seen.has(key)) out.push(p);
        seen.add(key);
        ws();
        i++; // ':'
        value(p);
        ws();
        if (text[i++] === '}') return;
      }
    } else if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (let n = 0; ; n++) {
        value(`${path}[${n}]`);
        ws();
        if (text[i++] === ']') return;
      }
    } else if (c === '"') {
      str();
    } else {
      while (i < text.length && !/[\s,}\]]/.test(text[i]!)) i++;
    }
  };
  try {
    value('');
  } catch {
    return [];
  }
  return out;
}
