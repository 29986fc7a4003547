import { OUTPUT_TAIL_CHARACTERS, type AlertSnapshot } from '../alertSnapshot';
import { formatDuration, hintLine, policyFacts, reasonLine, shownOutput } from './presentation';

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
 * The subject: the spec's two forms for its events (so a timeout, and a reminder, read "failed";
 * the body's status line says which), and one per event of the alert policy.
 */
function subjectOf(snapshot: AlertSnapshot): string {
  const name = snapshot.job.name;
  switch (snapshot.event) {
    case 'success':
      return `[service] ✓ ${name} succeeded`;
    case 'recovered':
      return `[service] ↻ ${name} recovered`;
    case 'overrun':
      return `[service] ⏱ ${name} running too long`;
    case 'tooFast':
      return `[service] ⚡ ${name} finished suspiciously fast`;
    case 'suspended':
      return `[service] ⏸ ${name} suspended`;
    case 'missed':
      return `[service] ✗ ${name} missed a run`;
    case 'late':
      return `[service] ⏱ ${name} started late`;
    default:
      return `[service] ✗ ${name} failed`;
  }
}

/**
 * The table of the body: the spec's facts of the run, or of a run still going, then the policy's,
 * then why the run ended so and what to try (where there is a reason).
 */
function rowsOf(snapshot: AlertSnapshot): [string, string][] {
  const { job, execution, run } = snapshot;
  const rows: [string, string][] = [['Job', job.name]];
  if (execution) {
    rows.push(
      ['Status', execution.status],
      ['Schedule', job.schedule],
      ['Started', execution.startedAt],
      ['Duration', durationText(execution.durationMs)],
      ['Exit code', String(execution.exitCode)],
      ['Attempt', String(execution.attempt)],
    );
  } else if (snapshot.slot) {
    rows.push(['Status', snapshot.slot.outcome], ['Schedule', job.schedule]);
  } else {
    rows.push(['Status', 'running'], ['Schedule', job.schedule]);
    if (run) {
      rows.push(
        ['Started', run.startedAt],
        ['Running for', durationText(run.runningForMs)],
        ['Limit', durationText(run.maxDurationSeconds * 1000)],
      );
      if (run.attempt !== undefined) rows.push(['Attempt', String(run.attempt)]);
    }
  }
  for (const fact of policyFacts(snapshot)) {
    // An overrun's start is the "Started" row above already.
    if (fact.label !== 'Running since') rows.push([fact.label, fact.value]);
  }
  const reason = reasonLine(snapshot);
  const hint = hintLine(snapshot);
  if (reason) rows.push(['Reason', reason]);
  if (reason && hint) rows.push(['Try', hint]);
  return rows;
}

/**
 * The e-mail of spec section 6. The body lists job name, schedule, start time, duration, exit
 * code, attempt and the last 500 characters of stderr (failure) or stdout (success), as plain text
 * with an escaped HTML alternative; what the alert policy adds, and why the run ended so and what
 * to try, come after the spec's lines.
 */
export function emailMessage(snapshot: AlertSnapshot): EmailContent {
  const subject = headerSafe(subjectOf(snapshot));
  const rows = rowsOf(snapshot);
  const output = shownOutput(snapshot);
  const outputTitle = output ? `Last ${OUTPUT_TAIL_CHARACTERS} characters of ${output.stream}:` : null;
  const shown = output ? (output.text.length > 0 ? output.text : '(empty)') : '';
  const text = [
    ...rows.map(([label, value]) => `${label}: ${value}`),
    ...(outputTitle ? ['', outputTitle, shown.endsWith('\n') ? shown : `${shown}\n`] : ['']),
  ].join('\n');
  const html = [
    '<!doctype html><html><body>',
    `<h2>${escapeHtml(subject)}</h2>`,
    '<table>',
    ...rows.map(
      ([label, value]) => `<tr><th align="left">${escapeHtml(label)}</th><td>${escapeHtml(value)}</td></tr>`,
    ),
    '</table>',
    ...(outputTitle ? [`<p>${escapeHtml(outputTitle)}</p>`, `<pre>${escapeHtml(shown)}</pre>`] : []),
    '</body></html>',
  ].join('\n');
  return { subject, text, html };
}

/** "850 ms"; from a second on, both readable and exact: "4 min 5 s (245120 ms)". */
function durationText(ms: number): string {
  return ms < 1000 ? formatDuration(ms) : `${formatDuration(ms)} (${ms} ms)`;
}
