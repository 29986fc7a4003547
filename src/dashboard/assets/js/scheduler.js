// The scheduler at a glance (running or paused, and until when) with pause and resume.

import { api } from './api.js';
import { byId, field, h, replaceChildren, setFieldError } from './dom.js';
import {
  LOCAL_TIME_ZONE,
  formatCompact,
  formatDateTime,
  formatRelative,
  toLocalInputValue,
} from './format.js';
import { mayPauseResume } from './session.js';
import { busy, openDialog, permit, toast } from './ui.js';

const NOT_ALLOWED =
  'Your Kubernetes role does not allow pausing or resuming the scheduler ' +
  '(post on the non-resource URLs /api/scheduler/pause and /api/scheduler/resume).';

export function createSchedulerPanel(ctx) {
  const root = byId('scheduler');
  let state = null;
  let renderedKey = '';
  let announcedKey = '';

  function render() {
    if (!state) return;
    // Whether jobs fire, for the views that show when they would (the jobs list's next runs).
    const announce = `${state.paused}|${state.until ?? ''}`;
    if (announce !== announcedKey) {
      announcedKey = announce;
      ctx.schedulerChanged({ paused: state.paused, until: state.until ?? null });
    }
    const allowed = mayPauseResume();
    const key = `${state.paused}|${state.until ?? ''}|${state.paused ? formatRelative(state.until) : ''}|${allowed}`;
    if (key === renderedKey) return;
    renderedKey = key;
    // Keep the focus on the button across re-renders when it had it.
    const hadFocus = root.contains(document.activeElement);
    // The text in a span of its own: one box that can wrap on a narrow screen, beside the dot.
    const status = state.paused
      ? h(
          'span',
          { class: 'pill pill-warn', id: 'scheduler-state' },
          h(
            'span',
            {},
            state.until
              ? [
                  'Paused until ',
                  h(
                    'time',
                    { datetime: state.until, title: formatDateTime(state.until) },
                    formatCompact(state.until),
                  ),
                  ` (${formatRelative(state.until)})`,
                ]
              : 'Paused',
          ),
        )
      : h('span', { class: 'pill pill-ok', id: 'scheduler-state' }, h('span', {}, 'Scheduler running'));
    const button = state.paused
      ? h('button', { class: 'btn btn-small btn-primary', type: 'button', text: 'Resume', onclick: resume })
      : h('button', { class: 'btn btn-small', type: 'button', text: 'Pause…', onclick: openPauseDialog });
    permit(button, allowed, NOT_ALLOWED);
    replaceChildren(root, status, button);
    if (hadFocus) button.focus();
  }

  async function resume(event) {
    await busy(event.currentTarget, async () => {
      try {
        state = await api.resume();
        state.until = null;
        render();
        toast('Scheduler resumed: jobs fire at their next scheduled time.', 'success');
        ctx.refresh();
      } catch (error) {
        toast(`Could not resume: ${error.message}`, 'error');
      }
    });
  }

  function openPauseDialog() {
    const indefinite = h('input', { type: 'radio', name: 'pause-mode', value: 'indefinite', checked: true });
    const timed = h('input', { type: 'radio', name: 'pause-mode', value: 'until' });
    const untilInput = h('input', {
      type: 'datetime-local',
      name: 'until',
      min: toLocalInputValue(new Date()),
      value: toLocalInputValue(new Date(Date.now() + 60 * 60 * 1000)),
      disabled: true,
    });
    const untilField = field(`Resume at (your time, ${LOCAL_TIME_ZONE})`, untilInput);
    const presets = h(
      'div',
      { class: 'chips', role: 'group', 'aria-label': 'Quick choices' },
      [
        ['15 min', 15],
        ['1 hour', 60],
        ['4 hours', 240],
        ['Until tomorrow 9:00', null],
      ].map(([label, minutes]) =>
        h('button', {
          class: 'chip',
          type: 'button',
          text: label,
          onclick: () => {
            const target = minutes === null ? tomorrowAtNine() : new Date(Date.now() + minutes * 60 * 1000);
            timed.checked = true;
            syncMode();
            untilInput.value = toLocalInputValue(target);
          },
        }),
      ),
    );
    const syncMode = () => {
      untilInput.disabled = !timed.checked;
    };
    indefinite.addEventListener('change', syncMode);
    timed.addEventListener('change', syncMode);

    const submit = h('button', { class: 'btn btn-primary', type: 'submit', text: 'Pause scheduler' });
    const formError = h('p', { class: 'form-error', role: 'alert', hidden: true });
    const form = h(
      'form',
      { class: 'form', novalidate: true },
      h(
        'p',
        { class: 'dialog-message' },
        'While paused no job fires on its schedule; missed times are not replayed. "Run now" still works.',
      ),
      h(
        'fieldset',
        { class: 'fieldset' },
        h('legend', {}, 'How long'),
        h('label', { class: 'check' }, indefinite, 'Until I resume it'),
        h('label', { class: 'check' }, timed, 'Until a time'),
      ),
      untilField.wrapper,
      presets,
      formError,
      h(
        'div',
        { class: 'form-actions' },
        h('button', { class: 'btn', type: 'button', text: 'Cancel', onclick: () => dialog.close() }),
        submit,
      ),
    );

    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      setFieldError(untilField, null);
      formError.hidden = true;
      let until = null;
      if (timed.checked) {
        // datetime-local has no zone: the Date constructor reads it as the browser's local time.
        const date = untilInput.value ? new Date(untilInput.value) : null;
        if (!date || Number.isNaN(date.getTime())) {
          setFieldError(untilField, 'Choose a date and time.');
          untilInput.focus();
          return;
        }
        if (date.getTime() <= Date.now()) {
          setFieldError(untilField, 'Choose a time in the future.');
          untilInput.focus();
          return;
        }
        until = date.toISOString();
      }
      await busy(submit, async () => {
        try {
          state = await api.pause(until);
          render();
          dialog.close();
          toast(until ? `Scheduler paused until ${formatDateTime(until)}.` : 'Scheduler paused.', 'success');
          ctx.refresh();
        } catch (error) {
          formError.textContent = `Could not pause: ${error.message}`;
          formError.hidden = false;
        }
      });
    });

    const dialog = openDialog({ title: 'Pause the scheduler', content: form, className: 'dialog-small' });
    indefinite.focus();
  }

  /**
   * Kubernetes mode: reading the scheduler's state takes a non-resource URL that a role bound only
   * in a namespace does not grant. Not a failure of the page: the panel says so, with the 403.
   */
  function renderHidden(message) {
    state = null;
    if (renderedKey === 'hidden') return;
    renderedKey = 'hidden';
    replaceChildren(
      root,
      h(
        'span',
        { class: 'pill pill-muted', id: 'scheduler-state', title: message },
        h('span', {}, 'Scheduler state not shown to you'),
      ),
    );
  }

  return {
    async refresh() {
      try {
        state = await api.schedulerStatus();
      } catch (error) {
        if (error.status !== 403) throw error;
        renderHidden(error.message);
        return;
      }
      render();
    },
    /** What the caller may do changed: whether they may pause and resume too. */
    sessionChanged() {
      render();
    },
  };
}

function tomorrowAtNine() {
  const date = new Date();
  date.setDate(date.getDate() + 1);
  date.setHours(9, 0, 0, 0);
  return date;
}
