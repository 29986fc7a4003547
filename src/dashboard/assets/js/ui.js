// Shared widgets: status badges, modal dialogs, confirmation, toasts.

import { byId, h, setAttr, setText } from './dom.js';

const STATUS_LOOK = {
  success: { icon: '✓', label: 'success' },
  failed: { icon: '✕', label: 'failed' },
  timeout: { icon: '⏱', label: 'timeout' },
  skipped: { icon: '↷', label: 'skipped' },
  running: { icon: '●', label: 'running' },
};

/** A coloured badge with an icon, so a status does not rest on colour alone. */
export function statusBadge(status) {
  const badge = h('span', { class: 'badge' });
  updateStatusBadge(badge, status);
  return badge;
}

export function updateStatusBadge(badge, status) {
  const look = STATUS_LOOK[status];
  const kind = look ? status : 'none';
  const className = `badge badge-${kind}`;
  if (badge.className !== className) badge.className = className;
  setText(badge, look ? `${look.icon} ${look.label}` : status ? String(status) : 'never run');
}

/**
 * A modal dialog. `content` is a node (typically a form); the dialog removes itself when closed and
 * gives the focus back to where it was.
 */
export function openDialog({ title, content, className = '', onClose, dismissible = true }) {
  const previousFocus = document.activeElement;
  const titleId = `dialog-title-${Math.random().toString(36).slice(2)}`;
  const closeButton = dismissible
    ? h('button', {
        class: 'btn btn-ghost btn-icon dialog-close',
        type: 'button',
        'aria-label': 'Close',
        text: '×',
        onclick: () => dialog.close(),
      })
    : null;
  const dialog = h(
    'dialog',
    { class: `dialog ${className}`.trim(), 'aria-labelledby': titleId },
    h('div', { class: 'dialog-head' }, h('h2', { id: titleId, class: 'dialog-title' }, title), closeButton),
    h('div', { class: 'dialog-body' }, content),
  );
  if (!dismissible) dialog.addEventListener('cancel', (event) => event.preventDefault());
  dialog.addEventListener('close', () => {
    dialog.remove();
    onClose?.(dialog.returnValue);
    if (previousFocus instanceof HTMLElement && previousFocus.isConnected) previousFocus.focus();
  });
  document.body.appendChild(dialog);
  dialog.showModal();
  return dialog;
}

/** Asks a yes/no question; resolves to true when confirmed. The safe answer has the focus. */
export function confirmDialog({ title, message, confirmLabel = 'Confirm', danger = false }) {
  return new Promise((resolve) => {
    let confirmed = false;
    const cancel = h('button', {
      class: 'btn',
      type: 'button',
      text: 'Cancel',
      onclick: () => dialog.close(),
    });
    const confirm = h('button', {
      class: danger ? 'btn btn-danger' : 'btn btn-primary',
      type: 'button',
      text: confirmLabel,
      onclick: () => {
        confirmed = true;
        dialog.close();
      },
    });
    const dialog = openDialog({
      title,
      className: 'dialog-small',
      content: [
        h('p', { class: 'dialog-message' }, message),
        h('div', { class: 'form-actions' }, cancel, confirm),
      ],
      onClose: () => resolve(confirmed),
    });
    cancel.focus();
  });
}

/** A short message in the corner; errors stay longer and can be dismissed. */
export function toast(message, kind = 'info') {
  const container = byId('toasts');
  const item = h(
    'div',
    { class: `toast toast-${kind}` },
    h('span', { class: 'toast-text' }, message),
    h('button', {
      class: 'btn btn-ghost btn-icon',
      type: 'button',
      'aria-label': 'Dismiss',
      text: '×',
      onclick: () => item.remove(),
    }),
  );
  container.appendChild(item);
  setTimeout(() => item.remove(), kind === 'error' ? 10_000 : 4_000);
}

/** Disables a button while `work` runs, so a double click does not send twice. */
export async function busy(button, work) {
  if (button.disabled) return undefined;
  const refocus = keepFocus(button);
  button.disabled = true;
  setAttr(button, 'aria-busy', 'true');
  try {
    return await work();
  } finally {
    button.disabled = false;
    setAttr(button, 'aria-busy', null);
    refocus();
  }
}

/**
 * Call before disabling a control: disabling takes the keyboard focus from it (to the body). The
 * function returned gives it back once the control is enabled again, unless the focus went
 * somewhere else meanwhile (a dialog, another control) or the control is gone.
 */
export function keepFocus(control) {
  if (document.activeElement !== control) return () => {};
  return () => {
    const now = document.activeElement;
    const lost = !now || now === document.body || now === document.documentElement;
    if (lost && control.isConnected && !control.disabled) control.focus({ preventScroll: true });
  };
}

/**
 * Turns a control off while the caller may not use it (their Kubernetes role), saying why on hover,
 * and on again once they may. A control disabled for another reason (its request in flight, see
 * busy) is left as it is.
 */
export function permit(control, allowed, reason) {
  if (!allowed) {
    control.disabled = true;
    control.dataset.denied = 'true';
    setAttr(control, 'title', reason);
  } else if (control.dataset.denied === 'true') {
    control.disabled = false;
    delete control.dataset.denied;
    setAttr(control, 'title', null);
  }
}
