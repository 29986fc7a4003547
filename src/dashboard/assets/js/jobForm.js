// Create and edit a job, with the cron expression checked live by the service as it is typed.

import { ApiError, api } from './api.js';
import { field, h, setFieldError, setText, uid } from './dom.js';
import { formatRelative, formatShort } from './format.js';
import { busy, openDialog, toast } from './ui.js';

const SCHEDULE_EXAMPLES = [
  ['*/5 * * * *', 'every 5 minutes'],
  ['0 * * * *', 'every hour'],
  ['0 2 * * *', 'every day at 02:00'],
  ['30 8 * * 1-5', 'weekdays at 08:30'],
  ['0 0 1 * *', 'first day of each month'],
  ['@daily', 'once a day at midnight'],
];

let timeZoneList = null;
function timeZoneDatalist() {
  if (!timeZoneList) {
    const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
    timeZoneList = h(
      'datalist',
      { id: 'time-zones' },
      ['UTC', ...zones.filter((zone) => zone !== 'UTC')].map((zone) => h('option', { value: zone })),
    );
    document.body.appendChild(timeZoneList);
  }
  return timeZoneList;
}

/**
 * Opens the job form; `job` null creates. Calls `onSaved(job)` with the saved job. `namespaces`:
 * where a new job may go (Kubernetes mode: those where the caller may create jobs), `namespace` the
 * one to offer first; without any the form has no namespace (local mode), as the API's default.
 */
export function openJobForm({ job = null, onSaved, namespaces = [], namespace = '' }) {
  const editing = Boolean(job);
  timeZoneDatalist();
  const scheduleListId = uid('schedules');

  const f = {
    name: field(
      'Name',
      h('input', {
        name: 'name',
        required: true,
        maxlength: 200,
        autocomplete: 'off',
        spellcheck: 'false',
        value: job?.name ?? '',
      }),
      { hint: 'Letters, digits, ".", "_" and "-"; unique.', span: 2 },
    ),
    schedule: field(
      'Schedule (cron)',
      h('input', {
        name: 'schedule',
        class: 'mono',
        required: true,
        autocomplete: 'off',
        spellcheck: 'false',
        list: scheduleListId,
        placeholder: '*/5 * * * *',
        value: job?.schedule ?? '',
      }),
      { hint: 'minute hour day-of-month month day-of-week, or @hourly, @daily, @weekly…', span: 2 },
    ),
    timezone: field(
      'Time zone',
      h('input', {
        name: 'timezone',
        list: 'time-zones',
        autocomplete: 'off',
        spellcheck: 'false',
        placeholder: 'Service default',
        value: job?.timezone ?? '',
      }),
      {
        hint: 'IANA name such as Europe/Berlin. Empty: the service default (UTC unless SERVICE_TIMEZONE is set).',
      },
    ),
    command: field(
      'Command',
      h('textarea', {
        name: 'command',
        class: 'mono',
        rows: 3,
        required: true,
        spellcheck: 'false',
        value: job?.command ?? '',
      }),
      { hint: 'Run with sh -c.', wide: true },
    ),
    timeout: field(
      'Timeout (seconds)',
      h('input', { name: 'timeout', type: 'number', min: 0, max: 86400, step: 1, value: job?.timeout ?? 0 }),
      { hint: '0 = no timeout' },
    ),
    maxAttempts: field(
      'Retries',
      h('input', {
        name: 'maxAttempts',
        type: 'number',
        min: 0,
        max: 10,
        step: 1,
        value: job?.retry?.maxAttempts ?? 0,
      }),
      { hint: 'Extra attempts after a failure' },
    ),
    baseDelay: field(
      'Retry delay (seconds)',
      h('input', {
        name: 'baseDelay',
        type: 'number',
        min: 0,
        max: 3600,
        step: 'any',
        value: job?.retry?.baseDelay ?? 10,
      }),
      { hint: 'Doubles on each retry' },
    ),
    description: field(
      'Description',
      h('textarea', { name: 'description', rows: 2, value: job?.description ?? '' }),
      { wide: true },
    ),
    tags: field(
      'Tags',
      h('input', {
        name: 'tags',
        autocomplete: 'off',
        placeholder: 'backup, nightly',
        value: (job?.tags ?? []).join(', '),
      }),
      { hint: 'Comma-separated' },
    ),
  };
  // A job stays in its namespace: only a new one gets to choose.
  if (!editing && namespaces.length > 0) {
    f.namespace = field(
      'Namespace',
      h(
        'select',
        { name: 'namespace' },
        namespaces.map((name) => h('option', { value: name, selected: name === namespace }, name)),
      ),
      { hint: 'Where its ScheduledJob is created: the namespaces where your role may create jobs.' },
    );
  }
  const enabled = h('input', { type: 'checkbox', name: 'enabled', checked: job ? job.enabled : true });

  const preview = h('div', { class: 'cron-preview', 'aria-live': 'polite' });
  f.schedule.wrapper.insertBefore(preview, f.schedule.error);
  const scheduleList = h(
    'datalist',
    { id: scheduleListId },
    SCHEDULE_EXAMPLES.map(([value, label]) => h('option', { value, label })),
  );

  const formError = h('p', { class: 'form-error', role: 'alert', hidden: true });
  const submit = h('button', {
    class: 'btn btn-primary',
    type: 'submit',
    text: editing ? 'Save' : 'Create job',
  });
  const form = h(
    'form',
    { class: 'form form-grid', novalidate: true },
    f.namespace?.wrapper,
    f.name.wrapper,
    f.tags.wrapper,
    f.schedule.wrapper,
    f.timezone.wrapper,
    f.command.wrapper,
    f.timeout.wrapper,
    f.maxAttempts.wrapper,
    f.baseDelay.wrapper,
    f.description.wrapper,
    h('label', { class: 'check field-wide' }, enabled, 'Enabled: fire on schedule'),
    scheduleList,
    h('div', { class: 'field-wide' }, formError),
    h(
      'div',
      { class: 'form-actions field-wide' },
      h('button', { class: 'btn', type: 'button', text: 'Cancel', onclick: () => dialog.close() }),
      submit,
    ),
  );

  // Live check of the schedule: debounced, and a late answer never overwrites a newer one.
  let cronCheck = { state: 'unchecked' };
  let checkTimer = null;
  let inFlight = null;
  let checkSeq = 0;
  function scheduleCheck(delay = 250) {
    clearTimeout(checkTimer);
    checkTimer = setTimeout(checkCron, delay);
  }
  async function checkCron() {
    const expr = f.schedule.control.value.trim();
    const timezone = f.timezone.control.value.trim();
    inFlight?.abort();
    const seq = ++checkSeq;
    setFieldError(f.timezone, null);
    if (!expr) {
      cronCheck = { state: 'empty' };
      preview.className = 'cron-preview';
      setText(preview, '');
      setFieldError(f.schedule, null);
      return cronCheck;
    }
    inFlight = new AbortController();
    preview.className = 'cron-preview cron-pending';
    setText(preview, 'Checking…');
    try {
      const result = await api.describeCron(expr, timezone || undefined, inFlight.signal);
      if (seq !== checkSeq) return cronCheck;
      if (result.valid) {
        cronCheck = { state: 'valid' };
        setFieldError(f.schedule, null);
        preview.className = 'cron-preview cron-valid';
        const next = result.nextRun
          ? ` · next run ${formatShort(result.nextRun)} your time (${formatRelative(result.nextRun)})`
          : '';
        setText(preview, `✓ ${result.description}${next}`);
      } else {
        cronCheck = { state: 'invalid', error: result.error };
        preview.className = 'cron-preview';
        setText(preview, '');
        setFieldError(f.schedule, `✕ ${result.error}`);
      }
    } catch (error) {
      if (error?.name === 'AbortError' || seq !== checkSeq) return cronCheck;
      preview.className = 'cron-preview';
      setText(preview, '');
      if (error.status === 400 && /^timezone/.test(error.message)) {
        // The expression may be fine; the time zone is what the service refused.
        cronCheck = { state: 'badZone', error: error.message };
        setFieldError(f.timezone, stripField(error.message));
      } else {
        cronCheck = { state: 'unknown' };
        setText(preview, `Could not check the schedule: ${error.message}`);
      }
    }
    return cronCheck;
  }
  f.schedule.control.addEventListener('input', () => scheduleCheck());
  f.timezone.control.addEventListener('input', () => scheduleCheck(400));
  if (editing) checkCron();

  function collect() {
    const number = (control) => (control.value.trim() === '' ? undefined : Number(control.value));
    const body = {
      name: f.name.control.value.trim(),
      schedule: f.schedule.control.value.trim(),
      command: f.command.control.value,
      timeout: number(f.timeout.control) ?? 0,
      enabled: enabled.checked,
    };
    const maxAttempts = number(f.maxAttempts.control) ?? 0;
    if (maxAttempts > 0) body.retry = { maxAttempts, baseDelay: number(f.baseDelay.control) ?? 0 };
    const timezone = f.timezone.control.value.trim();
    if (timezone) body.timezone = timezone;
    const description = f.description.control.value.trim();
    if (description) body.description = description;
    const tags = f.tags.control.value
      .split(',')
      .map((tag) => tag.trim())
      .filter(Boolean);
    if (tags.length) body.tags = tags;
    if (f.namespace) body.namespace = f.namespace.control.value;
    return body;
  }

  function showError(message) {
    formError.textContent = message;
    formError.hidden = !message;
  }

  /** Checks what the browser can check before asking the service; returns the first bad field. */
  function localCheck(body) {
    const problems = [];
    if (!body.name) problems.push([f.name, 'Enter a name.']);
    else if (!/^[a-zA-Z0-9][a-zA-Z0-9._-]*$/.test(body.name)) {
      problems.push([f.name, 'Start with a letter or digit; use only letters, digits, ".", "_" and "-".']);
    }
    if (!body.schedule) problems.push([f.schedule, 'Enter a cron expression.']);
    else if (cronCheck.state === 'invalid') problems.push([f.schedule, `✕ ${cronCheck.error}`]);
    if (cronCheck.state === 'badZone') problems.push([f.timezone, stripField(cronCheck.error)]);
    if (!body.command.trim()) problems.push([f.command, 'Enter the command to run.']);
    // Name the allowed range: "Enter a valid timeout." leaves the user guessing. The bounds are the
    // inputs' own min and max, which follow the service's (src/domain/job.ts).
    const range = (parts) => `${parts.control.min} to ${parts.control.max}`;
    for (const [parts, message] of [
      [f.timeout, `Enter a timeout in whole seconds, from ${range(f.timeout)} (0 = no timeout).`],
      [f.maxAttempts, `Enter a number of retries from ${range(f.maxAttempts)}.`],
      [f.baseDelay, `Enter a retry delay from ${range(f.baseDelay)} seconds.`],
    ]) {
      if (!parts.control.checkValidity()) problems.push([parts, message]);
    }
    for (const parts of Object.values(f)) setFieldError(parts, null);
    for (const [parts, message] of problems) setFieldError(parts, message);
    return problems[0]?.[0] ?? null;
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    showError('');
    clearTimeout(checkTimer);
    if (f.schedule.control.value.trim()) await checkCron();
    const body = collect();
    const bad = localCheck(body);
    if (bad) {
      bad.control.focus();
      return;
    }
    await busy(submit, async () => {
      try {
        const saved = editing ? await api.updateJob(job.id, body) : await api.createJob(body);
        dialog.close('saved');
        toast(editing ? `Saved job ${saved.name}.` : `Created job ${saved.name}.`, 'success');
        onSaved?.(saved);
      } catch (error) {
        const target = error instanceof ApiError ? fieldOfError(f, error.message) : null;
        if (target) {
          setFieldError(target, stripField(error.message));
          target.control.focus();
        } else {
          showError(error.message);
        }
      }
    });
  });

  const dialog = openDialog({
    title: editing ? `Edit job ${job.name}` : 'New job',
    content: form,
    className: 'dialog-wide',
  });
  (editing ? f.schedule.control : f.name.control).focus();
  return dialog;
}

/** "name: must ..." → the name field; the service names the field first in its 400 messages. */
function fieldOfError(fields, message) {
  if (/already exists/i.test(message)) return fields.name;
  const match = /^([a-zA-Z]+)(?:\.([a-zA-Z]+))?[.\w]*: /.exec(message);
  if (!match) return null;
  const [, top, sub] = match;
  if (top === 'retry') return sub === 'baseDelay' ? fields.baseDelay : fields.maxAttempts;
  return Object.hasOwn(fields, top) ? fields[top] : null;
}

function stripField(message) {
  return message.replace(/^[a-zA-Z.0-9]+: /, '');
}
