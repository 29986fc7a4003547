import type { AlertSnapshot } from '../alertSnapshot';

/** The wording the human-facing formats share, so a chat message and an e-mail say the same thing. */

export function succeeded(snapshot: AlertSnapshot): boolean {
  return snapshot.event === 'success';
}

/** "✓ backup succeeded", "✗ backup failed", "✗ backup timed out". */
export function headline(snapshot: AlertSnapshot): string {
  const name = snapshot.job.name;
  switch (snapshot.event) {
    case 'success':
      return `✓ ${name} succeeded`;
    case 'timeout':
      return `✗ ${name} timed out`;
    default:
      return `✗ ${name} failed`;
  }
}

/** A duration people read at a glance: "850 ms", "12.3 s", "4 min 5 s", "2 h 3 min". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(Math.floor(ms / 100) / 10).toFixed(1)} s`;
  const totalSeconds = Math.floor(ms / 1000);
  if (totalSeconds < 3600) return `${Math.floor(totalSeconds / 60)} min ${totalSeconds % 60} s`;
  const totalMinutes = Math.floor(totalSeconds / 60);
  return `${Math.floor(totalMinutes / 60)} h ${totalMinutes % 60} min`;
}

/** The output an alert shows: stderr when the run failed, stdout when it succeeded. */
export function shownOutput(snapshot: AlertSnapshot): { stream: 'stdout' | 'stderr'; text: string } {
  return succeeded(snapshot)
    ? { stream: 'stdout', text: snapshot.execution.stdoutTail }
    : { stream: 'stderr', text: snapshot.execution.stderrTail };
}

const ELLIPSIS = '…';

/**
 * Escapes `text` character by character and cuts it so the result is at most `max` UTF-16 units
 * (the strictest way to count a platform's "characters"), marking a cut with an ellipsis. Cutting
 * after escaping would risk splitting an escape sequence; cutting before would not know the
 * escaped length. `keep: 'tail'` keeps the end (output, where the error is), `'head'` the start.
 */
export function escapeWithin(
  text: string,
  max: number,
  escape: (character: string) => string,
  keep: 'head' | 'tail' = 'head',
): string {
  const characters = Array.from(text);
  const escaped = characters.map(escape);
  const total = escaped.reduce((sum, piece) => sum + piece.length, 0);
  if (total <= max) return escaped.join('');
  const budget = max - ELLIPSIS.length;
  const kept: string[] = [];
  let used = 0;
  for (let i = 0; i < escaped.length; i++) {
    const piece = escaped[keep === 'head' ? i : escaped.length - 1 - i]!;
    if (used + piece.length > budget) break;
    kept.push(piece);
    used += piece.length;
  }
  return keep === 'head' ? kept.join('') + ELLIPSIS : ELLIPSIS + kept.reverse().join('');
}

/**
 * A zero-width space after every backtick: output shown inside a code block can then never form
 * the three backticks that would close it.
 */
export function separateBackticks(character: string): string {
  return character === '`' ? '`\u200b' : character;
}
