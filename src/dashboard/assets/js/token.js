// The token prompt: shown when the service answers 401, until a token that works is entered.

import { request, storeToken } from './api.js';
import { field, h, setFieldError } from './dom.js';
import { openDialog } from './ui.js';

let pending = null;

/**
 * Asks for the API token and checks it against the service before keeping it (sessionStorage:
 * this tab, until it is closed). Resolves once a token was accepted; concurrent calls share one
 * prompt.
 */
export function promptForToken({ rejectedToken = false } = {}) {
  pending ??= new Promise((resolve) => {
    const input = h('input', {
      type: 'password',
      name: 'token',
      autocomplete: 'current-password',
      spellcheck: 'false',
      required: true,
    });
    const tokenField = field('API token', input, {
      hint: 'Kept in this browser tab only, until you close it.',
    });
    const show = h('input', { type: 'checkbox', id: 'token-show' });
    show.addEventListener('change', () => {
      input.type = show.checked ? 'text' : 'password';
    });
    const submit = h('button', { class: 'btn btn-primary', type: 'submit', text: 'Continue' });
    const intro = rejectedToken
      ? 'The saved API token is no longer accepted by this service. Enter the current token.'
      : 'This Crondeck service requires an API token (SERVICE_API_TOKEN).';
    const form = h(
      'form',
      { class: 'form', novalidate: true },
      h('p', { class: 'dialog-message' }, intro),
      tokenField.wrapper,
      h('label', { class: 'check' }, show, 'Show token'),
      h('div', { class: 'form-actions' }, submit),
    );

    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const token = input.value.trim();
      if (!token) {
        setFieldError(tokenField, 'Enter the token.');
        input.focus();
        return;
      }
      submit.disabled = true;
      setFieldError(tokenField, null);
      try {
        await request('GET', 'api/stats', undefined, { token, notifyUnauthorized: false });
        storeToken(token);
        dialog.close('accepted');
        pending = null;
        resolve(token);
      } catch (error) {
        const message =
          error.status === 401
            ? `Wrong token: the service did not accept it (${error.message}).`
            : `Could not check the token: ${error.message}`;
        setFieldError(tokenField, message);
        tokenField.error.setAttribute('role', 'alert');
        input.focus();
        input.select();
      } finally {
        submit.disabled = false;
      }
    });

    const dialog = openDialog({
      title: 'Sign in to Crondeck',
      content: form,
      className: 'dialog-small',
      dismissible: false,
    });
    input.focus();
  });
  return pending;
}
