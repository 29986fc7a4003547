// The alert policy part of the alert editor: when a job's alerts are sent, and what else is watched.
// Contract: the optional `policy` of PUT /api/jobs/:id/alerts (docs/alert-policy.md). Every field is
// optional; an editor left empty sends no policy at all, so the configuration stays the spec's.

import { field, h, setFieldError } from './dom.js';

/** The number fields, in the order shown: key, label, hint. */
const NUMBERS = [
  [
    'afterConsecutiveFailures',
    'Alert from the Nth failed run in a row',
    'Empty: from the first. Earlier failures are kept as “suppressed”.',
  ],
  [
    'repeatEverySeconds',
    'Remind at most every (seconds)',
    'While it keeps failing. Empty: every failed run alerts. At least 60.',
  ],
  [
    'suspendAfterFailures',
    'Suspend after N failed runs in a row',
    'Until someone switches it on or runs it.',
  ],
  ['maxDurationSeconds', 'Overrun after (seconds)', 'Sends “overrun” once per run still going.'],
  ['minDurationSeconds', 'Too fast under (seconds)', 'Sends “too fast” for a shorter success.'],
];

function numberInput(value) {
  return h('input', {
    type: 'number',
    min: 1,
    step: 1,
    inputmode: 'numeric',
    value: value === undefined || value === null ? '' : String(value),
  });
}

/**
 * The policy fields for `policy` (the stored one, or undefined). `collect()` answers the policy to
 * send (undefined when nothing is set) and the first control at fault; `showServerError(message)`
 * puts a refusal such as "policy.maintenance.0.schedule: ..." on its field and says whether it did.
 */
export function createPolicyEditor(policy = {}) {
  const numbers = new Map(
    NUMBERS.map(([key, label, hint]) => [key, field(label, numberInput(policy[key]), { hint })]),
  );
  const recovery = h('input', { type: 'checkbox', checked: policy.recovery === true });
  const windowList = h('div', { class: 'destinations' });
  const windows = [];
  const noWindows = h('p', { class: 'muted small' }, 'No maintenance windows.');

  const renumber = () => {
    windows.forEach((entry, index) => (entry.legend.textContent = `Window ${index + 1}`));
    noWindows.hidden = windows.length > 0;
  };

  function addWindow(value) {
    const schedule = field(
      'Opens at (cron)',
      h('input', {
        type: 'text',
        class: 'mono',
        placeholder: '30 23 * * 6',
        autocomplete: 'off',
        spellcheck: 'false',
        value: value?.schedule ?? '',
      }),
    );
    const duration = field('Lasts (seconds)', numberInput(value?.durationSeconds));
    const timezone = field(
      'Time zone',
      h('input', {
        type: 'text',
        placeholder: 'the job’s',
        autocomplete: 'off',
        spellcheck: 'false',
        value: value?.timezone ?? '',
      }),
    );
    const legend = h('legend', {});
    const entry = { schedule, duration, timezone, legend };
    entry.element = h(
      'fieldset',
      { class: 'destination' },
      legend,
      h('div', { class: 'form-grid' }, schedule.wrapper, duration.wrapper, timezone.wrapper),
      h(
        'div',
        { class: 'destination-actions' },
        h('button', {
          class: 'btn btn-small btn-ghost btn-danger-text',
          type: 'button',
          text: 'Remove window',
          onclick: () => {
            windows.splice(windows.indexOf(entry), 1);
            entry.element.remove();
            renumber();
            addButton.focus();
          },
        }),
      ),
    );
    windows.push(entry);
    windowList.appendChild(entry.element);
    renumber();
    return entry;
  }

  const addButton = h('button', {
    class: 'btn btn-small',
    type: 'button',
    text: 'Add window',
    onclick: () => addWindow().schedule.control.focus(),
  });
  for (const window of policy.maintenance ?? []) addWindow(window);
  renumber();

  const element = h(
    'div',
    { class: 'policy' },
    h('div', { class: 'section-head' }, h('h3', {}, 'Policy')),
    h(
      'p',
      { class: 'muted small' },
      'Optional. Without a policy every matching run alerts. Destinations hear of recovered, overrun, ' +
        'too fast and suspended only when they list them.',
    ),
    h(
      'div',
      { class: 'form-grid' },
      [...numbers.values()].map((parts) => parts.wrapper),
    ),
    h(
      'label',
      { class: 'check' },
      recovery,
      'Send “recovered” on the first success after an alerted failure',
    ),
    h('div', { class: 'section-head' }, h('h4', {}, 'Maintenance windows (alerts muted)'), addButton),
    noWindows,
    windowList,
  );

  function collect() {
    let firstBad = null;
    const whole = (parts, required) => {
      setFieldError(parts, null);
      const text = parts.control.value.trim();
      if (text === '') {
        if (required) {
          setFieldError(parts, 'Enter a number of seconds.');
          firstBad ??= parts.control;
        }
        return undefined;
      }
      const value = Number(text);
      if (!Number.isInteger(value) || value < 1) {
        setFieldError(parts, 'Enter a whole number, 1 or more.');
        firstBad ??= parts.control;
        return undefined;
      }
      return value;
    };
    const result = {};
    for (const [key, parts] of numbers) {
      const value = whole(parts, false);
      if (value !== undefined) result[key] = value;
    }
    if (recovery.checked) result.recovery = true;
    const maintenance = windows.map((entry) => {
      setFieldError(entry.schedule, null);
      const schedule = entry.schedule.control.value.trim();
      if (!schedule) {
        setFieldError(entry.schedule, 'Enter a cron expression.');
        firstBad ??= entry.schedule.control;
      }
      const window = { schedule, durationSeconds: whole(entry.duration, true) };
      const zone = entry.timezone.control.value.trim();
      if (zone) window.timezone = zone;
      return window;
    });
    if (maintenance.length > 0) result.maintenance = maintenance;
    return { policy: Object.keys(result).length > 0 ? result : undefined, firstBad };
  }

  /** "policy.maxDurationSeconds: must be ..." or "policy.maintenance.1.timezone: ..." → that field. */
  function showServerError(message) {
    const match = /^policy\.(\w+)(?:\.(\d+)\.(\w+))?: (.*)$/s.exec(message);
    if (!match) return false;
    const [, key, index, windowKey, text] = match;
    let parts = numbers.get(key);
    if (key === 'maintenance' && index !== undefined) {
      const entry = windows[Number(index)];
      parts =
        entry &&
        { schedule: entry.schedule, durationSeconds: entry.duration, timezone: entry.timezone }[windowKey];
    }
    if (!parts) return false;
    setFieldError(parts, text);
    parts.control.focus();
    return true;
  }

  return { element, collect, showServerError };
}
