/** How the CEL code reports what it finds. */

/** A CEL construct the emulator cannot judge as the real server would: the request is refused (501). */
export class NotEmulatedCel extends Error {}

/** A compile error at a code-point offset of the source (cel-go's common.Error). */
export interface Issue {
  offset: number;
  message: string;
}

/** Line (1-based) and column (0-based code points) of an offset, as cel-go's Location. */
function location(source: string, offset: number): { line: number; column: number; lineText: string } {
  const lines = source.split('\n');
  let rest = offset;
  for (let i = 0; i < lines.length; i++) {
    const len = [...lines[i]!].length;
    if (rest <= len) return { line: i + 1, column: rest, lineText: lines[i]! };
    rest -= len + 1;
  }
  const last = lines[lines.length - 1]!;
  return { line: lines.length, column: [...last].length, lineText: last };
}

/**
 * cel-go's Issues.String(): each error as `ERROR: <input>:L:C: message`, the source line and a
 * caret under the column, errors sorted by position and joined by newlines.
 */
export function formatIssues(source: string, issues: Issue[]): string {
  return [...issues]
    .sort((a, b) => a.offset - b.offset)
    .map((issue) => {
      const { line, column, lineText } = location(source, issue.offset);
      const snippet = lineText.replace(/\t/g, ' ');
      return `ERROR: <input>:${line}:${column + 1}: ${issue.message}\n | ${snippet}\n | ${'.'.repeat(Math.min(column, [...snippet].length))}^`;
    })
    .join('\n');
}
