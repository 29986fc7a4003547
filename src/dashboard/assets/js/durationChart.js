// A job's last runs as a small bar chart of their durations, coloured by outcome, with the
// envelope of its alert policy (minDurationSeconds, maxDurationSeconds) drawn as lines. A duration
// axis on the left (ticks at round values, with gridlines) and the runs' start times along the
// bottom, so that it reads without hovering. Inline SVG built with DOM calls: no chart library, no
// markup parsed, colours from the stylesheet.

import { formatCompact, formatDateTime, formatDuration } from './format.js';

const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 800;
const HEIGHT = 230;
const PAD = { top: 14, right: 86, bottom: 52, left: 64 };
const STATUSES = ['success', 'failed', 'timeout'];
/** At most this many intervals on the duration axis, and this many start times along the runs. */
const MAX_DURATION_TICKS = 5;
const MAX_RUN_LABELS = 6;
/** Steps of the duration axis, in ms: each a round number of its unit. */
const DURATION_STEPS = [
  1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000,
  600_000, 900_000, 1_800_000, 3_600_000, 7_200_000, 10_800_000, 21_600_000, 43_200_000, 86_400_000,
];

/** A tick's value, short: `0`, `500 ms`, `15 s`, `2 min`, `1 h`. */
function tickLabel(ms) {
  if (ms === 0) return '0';
  if (ms < 1_000) return `${ms} ms`;
  if (ms < 60_000) return `${ms / 1_000} s`;
  if (ms < 3_600_000) return `${ms / 60_000} min`;
  return `${ms / 3_600_000} h`;
}

/** The duration axis for values up to `max` ms: a round step, and a top that is a whole number of them. */
function durationScale(max) {
  const step =
    DURATION_STEPS.find((candidate) => Math.ceil(max / candidate) <= MAX_DURATION_TICKS) ??
    Math.ceil(max / MAX_DURATION_TICKS / 86_400_000) * 86_400_000;
  const top = Math.max(1, Math.ceil(max / step)) * step;
  return { step, top };
}

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
  // The top of the axis is a round value at or above the longest run and the envelope's lines.
  const longest = Math.max(1, ...runs.map((run) => run.durationMs), ...lines.map(([, ms]) => ms));
  const { step, top } = durationScale(runs.length + lines.length === 0 ? 1_000 : longest);
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
  // The duration axis: a gridline and a value at each step, and what the values are.
  const durationAxis = svg('g', { class: 'chart-duration-axis', 'aria-hidden': 'true' });
  for (let ms = 0; ms <= top; ms += step) {
    durationAxis.appendChild(
      svg('line', { class: 'chart-grid', x1: PAD.left, x2: WIDTH - PAD.right, y1: y(ms), y2: y(ms) }),
    );
    durationAxis.appendChild(
      text('text', { class: 'chart-tick chart-tick-duration', x: PAD.left - 6, y: y(ms) + 4 }, tickLabel(ms)),
    );
  }
  durationAxis.appendChild(
    text(
      'text',
      {
        class: 'chart-axis-title',
        x: 14,
        y: PAD.top + plotHeight / 2,
        transform: `rotate(-90 14 ${PAD.top + plotHeight / 2})`,
      },
      'Duration',
    ),
  );
  durationAxis.appendChild(
    svg('line', { class: 'chart-axis', x1: PAD.left, x2: PAD.left, y1: PAD.top, y2: PAD.top + plotHeight }),
  );
  chart.appendChild(durationAxis);
  chart.appendChild(
    svg('line', {
      class: 'chart-axis',
      x1: PAD.left,
      x2: WIDTH - PAD.right,
      y1: PAD.top + plotHeight,
      y2: PAD.top + plotHeight,
    }),
  );
  // The runs' axis: when some of them started, evenly spread (the first and the last among them).
  const runAxis = svg('g', { class: 'chart-run-axis', 'aria-hidden': 'true' });
  const labelled = Math.min(runs.length, MAX_RUN_LABELS);
  const indexes = new Set(
    Array.from({ length: labelled }, (_, k) =>
      labelled === 1 ? 0 : Math.round((k * (runs.length - 1)) / (labelled - 1)),
    ),
  );
  for (const index of indexes) {
    const run = runs[index];
    const x = PAD.left + index * slot + slot / 2;
    runAxis.appendChild(
      svg('line', {
        class: 'chart-axis',
        x1: x,
        x2: x,
        y1: PAD.top + plotHeight,
        y2: PAD.top + plotHeight + 4,
      }),
    );
    runAxis.appendChild(
      text(
        'text',
        { class: 'chart-tick chart-tick-run', x, y: PAD.top + plotHeight + 18 },
        formatCompact(run.startedAt),
      ),
    );
  }
  runAxis.appendChild(
    text(
      'text',
      { class: 'chart-axis-title', x: PAD.left + plotWidth / 2, y: HEIGHT - 8 },
      runs.length === 0 ? 'No finished runs yet' : 'Start of each run, oldest on the left',
    ),
  );
  chart.appendChild(runAxis);
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
