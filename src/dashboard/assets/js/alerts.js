// A job's alert destinations: webhooks and e-mails, each with the events it wants, and its policy.
// Contract: GET/PUT/DELETE /api/jobs/:id/alerts with { webhooks: [{ url, events }], emails: [{ to, events }] }
// (a webhook may also carry `format` and `signed`, which the form keeps as they are) and an
// optional { policy } (docs/alert-policy.md).

import { api } from './api.js';
import { field, h, replaceChildren, setFieldError, uid } from './dom.js';
import { createPolicyEditor } from './policyEditor.js';
import { busy, confirmDialog, openDialog, permit, toast } from './ui.js';

/** The spec's outcomes, then the events an alert policy raises (a destination opts into each). */
// `missed` and `late` are the slot ledger's (docs/slots.md).
const EVENTS = [
  'success',
  'failed',
  'timeout',
  'recovered',
  'overrun',
  'tooFast',
  'suspended',
  'missed',
  'late',
];
const DEFAULT_EVENTS = ['failed', 'timeout'];
/** Words for the events whose API names are not words; the others are named as they are sent. */
const EVENT_LABELS = { tooFast: 'too fast' };

/** A 404 that means the endpoint itself is missing (an older service), not a missing job. */
function endpointMissing(error) {
  return error.status === 404 && /no such endpoint|^cannot |^404\b/i.test(error.message);
}

function jobMissing(error) {
  return error.status === 404 && /^job \d+ not found/i.test(error.message);
}

const UNAVAILABLE =
  'Alert settings are not available on this service yet: its alerts endpoint answered 404. ' +
  'Jobs and runs are not affected.';

const READ_ONLY =
  'Your Kubernetes role may read these alert settings but not change them (update alertconfigs).';

/** `canChange`: whether the caller may change them (their Kubernetes role); else they only read. */
export function openAlertsDialog(job, { canChange = true } = {}) {
  const body = h('div', { class: 'alerts-body' }, h('p', { class: 'muted' }, 'Loading alert settings…'));
  const dialog = openDialog({ title: `Alerts for ${job.name}`, content: body, className: 'dialog-wide' });
  load();

  async function load() {
    try {
      const config = await api.getAlerts(job.id);
      renderEditor(config ?? {});
    } catch (error) {
      if (endpointMissing(error)) renderNotice(UNAVAILABLE);
      else if (jobMissing(error)) renderNotice(`This job no longer exists (${error.message}).`);
      // Any other 404 reads as "nothing configured yet": start from an empty configuration.
      else if (error.status === 404) renderEditor({});
      else renderNotice(`Could not load the alert settings: ${error.message}`, true);
    }
  }

  function renderNotice(message, retry = false) {
    replaceChildren(
      body,
      h('div', { class: 'notice', role: 'status' }, message),
      h(
        'div',
        { class: 'form-actions' },
        retry
          ? h('button', {
              class: 'btn',
              type: 'button',
              text: 'Try again',
              onclick: () => {
                replaceChildren(body, h('p', { class: 'muted' }, 'Loading alert settings…'));
                load();
              },
            })
          : null,
        h('button', {
          class: 'btn btn-primary',
          type: 'button',
          text: 'Close',
          onclick: () => dialog.close(),
        }),
      ),
    );
    body.querySelector('.form-actions .btn-primary').focus();
  }

  function keptWebhookFields(value) {
    const kept = {};
    if (value?.format) kept.format = value.format;
    if (value?.signed === true) kept.signed = true;
    return kept;
  }

  function renderEditor(config) {
    const webhookList = h('div', { class: 'destinations' });
    const emailList = h('div', { class: 'destinations' });
    const webhooks = [];
    const emails = [];

    const renumber = () => {
      webhooks.forEach((entry, index) => (entry.legend.textContent = `Webhook ${index + 1}`));
      emails.forEach((entry, index) => (entry.legend.textContent = `E-mail ${index + 1}`));
      webhookEmpty.hidden = webhooks.length > 0;
      emailEmpty.hidden = emails.length > 0;
    };

    function addDestination(list, entries, kind, value) {
      const control =
        kind === 'webhook'
          ? h('input', {
              type: 'url',
              class: 'mono',
              placeholder: 'https://hooks.example.com/…',
              autocomplete: 'off',
              spellcheck: 'false',
              value: value?.url ?? '',
            })
          : h('input', {
              type: 'text',
              placeholder: 'ops@example.com, oncall@example.com',
              autocomplete: 'off',
              spellcheck: 'false',
              value: (value?.to ?? []).join(', '),
            });
      const target = field(kind === 'webhook' ? 'URL' : 'Recipients (comma-separated)', control, {
        wide: true,
      });
      const events = value?.events ?? DEFAULT_EVENTS;
      const boxes = EVENTS.map((event) =>
        h('input', { type: 'checkbox', value: event, checked: events.includes(event) }),
      );
      const eventsError = h('div', { class: 'field-error', hidden: true, id: uid('events-error') });
      const legend = h('legend', {});
      // What the form does not edit (a webhook's format, `signed: true` that keeps its secret) goes
      // back as it came, so saving never drops it.
      const kept = kind === 'webhook' ? keptWebhookFields(value) : {};
      const entry = { kind, control, target, boxes, eventsError, legend, kept };
      const remove = h('button', {
        class: 'btn btn-small btn-ghost btn-danger-text',
        type: 'button',
        text: 'Remove',
        onclick: () => {
          entries.splice(entries.indexOf(entry), 1);
          entry.element.remove();
          renumber();
          (kind === 'webhook' ? addWebhook : addEmail).focus();
        },
      });
      entry.element = h(
        'fieldset',
        { class: 'destination' },
        legend,
        target.wrapper,
        h(
          'div',
          { class: 'events', role: 'group', 'aria-label': 'Events', 'aria-describedby': eventsError.id },
          h('span', { class: 'events-label' }, 'Notify on'),
          boxes.map((box) => h('label', { class: 'check' }, box, EVENT_LABELS[box.value] ?? box.value)),
        ),
        eventsError,
        h('div', { class: 'destination-actions' }, remove),
      );
      entries.push(entry);
      list.appendChild(entry.element);
      renumber();
      return entry;
    }

    const webhookEmpty = h('p', { class: 'muted small' }, 'No webhooks.');
    const emailEmpty = h('p', { class: 'muted small' }, 'No e-mail alerts.');
    const addWebhook = h('button', {
      class: 'btn btn-small',
      type: 'button',
      text: 'Add webhook',
      onclick: () => addDestination(webhookList, webhooks, 'webhook').control.focus(),
    });
    const addEmail = h('button', {
      class: 'btn btn-small',
      type: 'button',
      text: 'Add e-mail',
      onclick: () => addDestination(emailList, emails, 'email').control.focus(),
    });
    for (const webhook of config.webhooks ?? []) addDestination(webhookList, webhooks, 'webhook', webhook);
    for (const email of config.emails ?? []) addDestination(emailList, emails, 'email', email);
    const policy = createPolicyEditor(config.policy ?? {});

    const formError = h('p', { class: 'form-error', role: 'alert', hidden: true });
    const readOnly = canChange ? null : h('p', { class: 'notice', role: 'status' }, READ_ONLY);
    const save = h('button', { class: 'btn btn-primary', type: 'submit', text: 'Save alerts' });
    const removeAll = h('button', {
      class: 'btn btn-danger-text btn-ghost',
      type: 'button',
      text: 'Remove all',
      onclick: async () => {
        const confirmed = await confirmDialog({
          title: 'Remove all alerts?',
          message: `No webhook or e-mail will be sent for ${job.name} any more.`,
          confirmLabel: 'Remove all',
          danger: true,
        });
        if (!confirmed) return;
        await busy(removeAll, async () => {
          try {
            await api.deleteAlerts(job.id);
            dialog.close();
            toast(`Removed all alerts of ${job.name}.`, 'success');
          } catch (error) {
            showFormError(endpointMissing(error) ? UNAVAILABLE : `Could not remove: ${error.message}`);
          }
        });
      },
    });

    function showFormError(message) {
      formError.textContent = message ?? '';
      formError.hidden = !message;
    }

    function collect() {
      let firstBad = null;
      const flag = (entry, message, where = 'target') => {
        if (where === 'target') setFieldError(entry.target, message);
        else {
          entry.eventsError.textContent = message;
          entry.eventsError.hidden = false;
        }
        firstBad ??= where === 'target' ? entry.control : entry.boxes[0];
      };
      const read = (entry) => {
        setFieldError(entry.target, null);
        entry.eventsError.hidden = true;
        const events = entry.boxes.filter((box) => box.checked).map((box) => box.value);
        if (events.length === 0) flag(entry, 'Choose at least one event.', 'events');
        return events;
      };
      const result = {
        webhooks: webhooks.map((entry) => {
          const events = read(entry);
          const url = entry.control.value.trim();
          if (!/^https?:\/\/[^\s]+$/i.test(url)) flag(entry, 'Enter an http:// or https:// URL.');
          return { url, events, ...entry.kept };
        }),
        emails: emails.map((entry) => {
          const events = read(entry);
          const to = entry.control.value
            .split(/[,;\s]+/)
            .map((address) => address.trim())
            .filter(Boolean);
          if (to.length === 0) flag(entry, 'Enter at least one address.');
          else if (to.some((address) => !/^[^@\s]+@[^@\s]+$/.test(address))) {
            flag(entry, 'Each recipient must be an e-mail address such as ops@example.com.');
          }
          return { to, events };
        }),
      };
      const collected = policy.collect();
      firstBad ??= collected.firstBad;
      // Without a policy the body is exactly the spec's configuration.
      if (collected.policy) result.policy = collected.policy;
      return { result, firstBad };
    }

    /** "webhooks.1.url: must be ..." → that destination's field. */
    function showServerError(message) {
      if (policy.showServerError(message)) return;
      const match = /^(webhooks|emails)\.(\d+)(?:\.(\w+))?/.exec(message);
      const entry = match ? (match[1] === 'webhooks' ? webhooks : emails)[Number(match[2])] : null;
      if (!entry) return showFormError(message);
      const text = message.replace(/^[\w.]+: /, '');
      if (match[3] === 'events') {
        entry.eventsError.textContent = text;
        entry.eventsError.hidden = false;
        entry.boxes[0].focus();
      } else {
        setFieldError(entry.target, text);
        entry.control.focus();
      }
    }

    const form = h(
      'form',
      { class: 'form', novalidate: true },
      h(
        'p',
        { class: 'dialog-message' },
        'Each destination is notified when a run of this job ends with one of its events.',
      ),
      h('div', { class: 'section-head' }, h('h3', {}, 'Webhooks'), addWebhook),
      webhookEmpty,
      webhookList,
      h('div', { class: 'section-head' }, h('h3', {}, 'E-mail'), addEmail),
      emailEmpty,
      emailList,
      policy.element,
      readOnly,
      formError,
      h(
        'div',
        { class: 'form-actions' },
        removeAll,
        h('span', { class: 'tabs-spacer' }),
        h('button', { class: 'btn', type: 'button', text: 'Cancel', onclick: () => dialog.close() }),
        save,
      ),
    );
    renumber();
    permit(save, canChange, READ_ONLY);
    permit(removeAll, canChange, READ_ONLY);

    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      showFormError(null);
      const { result, firstBad } = collect();
      if (firstBad) {
        firstBad.focus();
        return;
      }
      await busy(save, async () => {
        try {
          await api.putAlerts(job.id, result);
          dialog.close();
          toast(`Saved alerts of ${job.name}.`, 'success');
        } catch (error) {
          if (endpointMissing(error)) showFormError(UNAVAILABLE);
          else showServerError(error.message);
        }
      });
    });

    replaceChildren(body, form);
    (webhooks[0]?.control ?? addWebhook).focus();
  }
}
