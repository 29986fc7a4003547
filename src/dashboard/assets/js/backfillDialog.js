// The backfill dialog of the job page: a range of the job's slots to run once each, now.
// The range is typed as wall-clock times of the browser's own time zone (datetime-local inputs
// carry no zone) and sent as the UTC instants the dialog spells out, so nobody has to guess which
// 02:00 was meant. The service's refusals (400: a bad range; 409: a disabled job, a backfill still
// going) are shown as the service words them, but with any instant in them in local time, as the
// form's own times are (the service writes UTC).
// Contract: POST /api/jobs/:id/backfill { from, to, concurrency } → 202 { slots }.

import { api } from './api.js';
import { field, h, setFieldError, setText } from './dom.js';
import { LOCAL_TIME_ZONE, localizeInstants, plural } from './format.js';
import { openDialog } from './ui.js';

const MAX_CONCURRENCY = 10;

/** The instant a datetime-local value names in the browser's time zone; null when empty or invalid. */
function localInputToDate(value) {
  if (!value) return null;
  // A date and time without an offset is local time (ECMAScript's Date parsing rule).
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

export function openBackfillDialog(job, { onStarted } = {}) {
  const f = {
    from: field('From', h('input', { type: 'datetime-local', name: 'from', required: true }), {
      hint: `${LOCAL_TIME_ZONE} time`,
    }),
    to: field('To', h('input', { type: 'datetime-local', name: 'to', required: true }), {
      hint: `${LOCAL_TIME_ZONE} time, included`,
    }),
    concurrency: field(
      'Runs at a time',
      h('input', { type: 'number', name: 'concurrency', min: 1, max: MAX_CONCURRENCY, step: 1, value: '1' }),
      { hint: `1 to ${MAX_CONCURRENCY}; slots run oldest first` },
    ),
  };
  const zoneNote = h(
    'p',
    { class: 'hint field-wide' },
    `Times are in your browser’s time zone, ${LOCAL_TIME_ZONE}. ` +
      `The job’s schedule is in ${job.timezone ?? 'the service’s time zone'}: ` +
      'every slot of it in the range runs once, each seeing its slot in CRONDECK_SCHEDULED_TIME.',
  );
  const utcEcho = h('p', { class: 'hint field-wide backfill-utc', 'aria-live': 'polite' });
  const result = h('p', { class: 'backfill-result field-wide', hidden: true });
  const submit = h('button', { class: 'btn btn-primary', type: 'submit', text: 'Start backfill' });
  const close = h('button', { class: 'btn', type: 'button', text: 'Cancel', onclick: () => dialog.close() });
  const form = h(
    'form',
    { class: 'form backfill-form', novalidate: true, onsubmit: (event) => start(event) },
    zoneNote,
    f.from.wrapper,
    f.to.wrapper,
    f.concurrency.wrapper,
    utcEcho,
    result,
    h('div', { class: 'form-actions field-wide' }, close, submit),
  );

  function echo() {
    const from = localInputToDate(f.from.control.value);
    const to = localInputToDate(f.to.control.value);
    setText(utcEcho, from && to ? `Sent as ${from.toISOString()} to ${to.toISOString()} (UTC).` : '');
  }
  f.from.control.addEventListener('input', echo);
  f.to.control.addEventListener('input', echo);

  function showResult(kind, message) {
    result.className = `backfill-result backfill-result-${kind} field-wide`;
    // An error is announced at once; the success is a status.
    result.setAttribute('role', kind === 'error' ? 'alert' : 'status');
    setText(result, message);
    result.hidden = false;
  }

  async function start(event) {
    event.preventDefault();
    result.hidden = true;
    const from = localInputToDate(f.from.control.value);
    const to = localInputToDate(f.to.control.value);
    if (!from) setFieldError(f.from, 'Give the first time of the range.');
    if (!to) setFieldError(f.to, 'Give the last time of the range.');
    if (!from || !to) return;
    const concurrencyText = f.concurrency.control.value.trim();
    // Anything but a whole number goes to the service as typed, which says what is wrong with it.
    const concurrency = concurrencyText === '' ? undefined : Number(concurrencyText);
    submit.disabled = true;
    try {
      const answer = await api.backfill(job.id, {
        from: from.toISOString(),
        to: to.toISOString(),
        concurrency,
      });
      showResult(
        'ok',
        `Backfill started: ${plural(answer.slots, 'slot')} of ${job.name} will run, oldest first.`,
      );
      setText(close, 'Close');
      onStarted?.(answer);
    } catch (error) {
      showResult('error', localizeInstants(error.message));
    } finally {
      submit.disabled = false;
    }
  }

  const dialog = openDialog({ title: `Backfill ${job.name}`, content: form });
  f.from.control.focus();
  return dialog;
}
