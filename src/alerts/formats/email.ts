import { OUTPUT_TAIL_CHARACTERS, type AlertSnapshot } from '../alertSnapshot';
import { formatDuration, hintLine, reasonLine, shownOutput, succeeded } from './presentation';

export interface EmailContent {
  subject: string;
  text: string;
  html: string;
}

/** Nothing that reaches a header may break a line: a CR or LF there could start a new header. */
function headerSafe(value: string): string {
  return value.replace(/\p{Cc}+/gu, ' ');
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * The e-mail of spec section 6. The subject has exactly two forms, so a timeout reads "failed"
 * (the body's status line says which). The body lists job name, schedule, start time, duration,
 * exit code, attempt, why it ended so and what to try (where there is a reason), and the last 500 characters of stderr (failure) or stdout (success), as
 * plain text with an escaped HTML alternative.
 */
export function emailMessage(snapshot: AlertSnapshot): EmailContent {
  const { job, execution } = snapshot;
  const subject = headerSafe(
    succeeded(snapshot) ? `[service] ✓ ${job.name} succeeded` : `[service] ✗ ${job.name} failed`,
  );
  const rows: [string, string][] = [
    ['Job', job.name],
    ['Status', execution.status],
    ['Schedule', job.schedule],
    ['Started', execution.startedAt],
    ['Duration', durationText(execution.durationMs)],
    ['Exit code', String(execution.exitCode)],
    ['Attempt', String(execution.attempt)],
  ];
  const reason = reasonLine(snapshot);
  const hint = hintLine(snapshot);
  if (reason) rows.push(['Reason', reason]);
  if (reason && hint) rows.push(['Try', hint]);
  const output = shownOutput(snapshot);
  const outputTitle = `Last ${OUTPUT_TAIL_CHARACTERS} characters of ${output.stream}:`;
  const shown = output.text.length > 0 ? output.text : '(empty)';
  const text = [
    ...rows.map(([label, value]) => `${label}: ${value}`),
    '',
    outputTitle,
    shown.endsWith('\n') ? shown : `${shown}\n`,
  ].join('\n');
  const html = [
    '<!doctype html><html><body>',
    `<h2>${escapeHtml(subject)}</h2>`,
    '<table>',
    ...rows.map(
      ([label, value]) => `<tr><th align="left">${escapeHtml(label)}</th><td>${escapeHtml(value)}</td></tr>`,
    ),
    '</table>',
    `<p>${escapeHtml(outputTitle)}</p>`,
    `<pre>${escapeHtml(shown)}</pre>`,
    '</body></html>',
  ].join('\n');
  return { subject, text, html };
}

/** "850 ms"; from a second on, both readable and exact: "4 min 5 s (245120 ms)". */
function durationText(ms: number): string {
  return ms < 1000 ? formatDuration(ms) : `${formatDuration(ms)} (${ms} ms)`;
}
