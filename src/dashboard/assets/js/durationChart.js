// A job's last runs as a small bar chart of their durations, coloured by outcome, with the
// envelope of its alert policy (minDurationSeconds, maxDurationSeconds) drawn as lines. Inline
// SVG built with DOM calls: no chart library, no markup parsed, colours from the stylesheet.

import { formatDateTime, formatDuration } from './format.js';

const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 800;
const HEIGHT = 180;
const PAD = { top: 14, right: 86, bottom: 8, left: 8 };
const STATUSES = ['success', 'failed', 'timeout'];

function svg(tag, attributes = {}, ...children) {
  const element = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
  for (const child of children) element.appendChild(child);
  return element;
}

function text(tag, attributes, value) {
  const element = svg(tag, attributes);
  element.textContent = value;
  return element;
}

/**
 * The chart of `executions` (newest first, as the API lists them; skipped fire times left out),
 * oldest on the left. `envelope`: `{ minMs, maxMs }`, either may be undefined.
 */
export function durationChart(executions, envelope = {}) {
  const runs = executions
    .filter((execution) => STATUSES.includes(execution.status) && execution.durationMs !== null)
    .slice()
    .reverse();
  const lines = [
    ['min', envelope.minMs, 'too fast under'],
    ['max', envelope.maxMs, 'overrun after'],
  ].filter(([, ms]) => ms !== undefined);
  const top = Math.max(1, ...runs.map((run) => run.durationMs), ...lines.map(([, ms]) => ms)) * 1.1;
  const plotWidth = WIDTH - PAD.left - PAD.right;
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  const y = (ms) => PAD.top + plotHeight - (ms / top) * plotHeight;
  const slot = plotWidth / Math.max(runs.length, 1);
  const barWidth = Math.max(2, Math.min(24, slot * 0.7));

  const summary =
    runs.length === 0
      ? 'No finished runs yet.'
      : `Durations of the last ${runs.length} runs, from ${formatDuration(Math.min(...runs.map((r) => r.durationMs)))} ` +
        `to ${formatDuration(Math.max(...runs.map((r) => r.durationMs)))}` +
        lines.map(([, ms, label]) => `; ${label} ${formatDuration(ms)}`).join('') +
        '.';
  const chart = svg('svg', {
    class: 'duration-chart',
    viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
    role: 'img',
    'aria-label': summary,
  });
  chart.appendChild(
    svg('line', {
      class: 'chart-axis',
      x1: PAD.left,
      x2: WIDTH - PAD.right,
      y1: PAD.top + plotHeight,
      y2: PAD.top + plotHeight,
    }),
  );
  runs.forEach((run, index) => {
    const height = Math.max(1, PAD.top + plotHeight - y(run.durationMs));
    const bar = svg('rect', {
      class: `chart-bar chart-bar-${run.status}`,
      x: PAD.left + index * slot + (slot - barWidth) / 2,
      y: PAD.top + plotHeight - height,
      width: barWidth,
      height,
      'data-execution-id': run.id,
    });
    // A tooltip with what the bar stands for: hovering reads it, and so does a screen reader.
    bar.appendChild(
      text(
        'title',
        {},
        `#${run.id} ${run.status}, ${formatDuration(run.durationMs)}, ${formatDateTime(run.startedAt)}`,
      ),
    );
    chart.appendChild(bar);
  });
  for (const [kind, ms] of lines) {
    chart.appendChild(
      svg('line', {
        class: `chart-limit chart-limit-${kind}`,
        x1: PAD.left,
        x2: WIDTH - PAD.right,
        y1: y(ms),
        y2: y(ms),
      }),
    );
    chart.appendChild(
      text(
        'text',
        { class: `chart-label chart-label-${kind}`, x: WIDTH - PAD.right + 6, y: y(ms) + 4 },
        `${kind} ${formatDuration(ms)}`,
      ),
    );
  }
  return chart;
}
