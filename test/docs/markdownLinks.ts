import { readFileSync } from 'node:fs';

/** A link written in a markdown file: its target as written and the line it is on. */
export interface MarkdownLink {
  target: string;
  line: number;
}

/** The file's lines outside fenced code blocks, numbered from 1: links and headings live there. */
function proseLines(markdown: string): { text: string; line: number }[] {
  const lines: { text: string; line: number }[] = [];
  let inCode = false;
  markdown.split('\n').forEach((text, index) => {
    if (text.startsWith('```')) inCode = !inCode;
    else if (!inCode) lines.push({ text, line: index + 1 });
  });
  return lines;
}

/** Relative links and images (`[text](target)`), leaving out inline code and absolute URLs. */
export function relativeLinks(file: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  for (const { text, line } of proseLines(readFileSync(file, 'utf8'))) {
    const withoutCode = text.replace(/`[^`]*`/g, '');
    for (const [, target = ''] of withoutCode.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) links.push({ target, line });
    }
  }
  return links;
}

/**
 * The anchors GitHub gives the file's headings: lower case, punctuation other than `-` and `_`
 * dropped, spaces turned into `-`, and `-1`, `-2`... on repeats.
 */
export function headingAnchors(file: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text } of proseLines(readFileSync(file, 'utf8'))) {
    const heading = /^#{1,6} (.*)$/.exec(text)?.[1];
    if (heading === undefined) continue;
    const slug = heading
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const repeats = seen.get(slug) ?? 0;
    seen.set(slug, repeats + 1);
    anchors.add(repeats === 0 ? slug : `${slug}-${repeats}`);
  }
  return anchors;
}
