// The sign-in: shown when the service answers 401, until a token that works is entered. The token
// is the shared SERVICE_API_TOKEN, or with SERVICE_AUTH=kubernetes the person's own Kubernetes
// token (a ServiceAccount's from `kubectl create token`, an OIDC ID token), which the service has
// the cluster review.

import { request, storeToken } from './api.js';
import { field, h, setFieldError } from './dom.js';
import { openDialog } from './ui.js';

let pending = null;

/**
 * Which token the service wants, from its 401: the shared token's refusals name an "API token"
 * (src/http/auth.ts); Kubernetes auth's name a bearer token the cluster accepts (src/auth/).
 */
export function tokenKindOf(refusal) {
  return /\bAPI token\b/.test(refusal ?? '') ? 'shared' : 'kubernetes';
}

/** The prompt's words for each kind of token. */
const WORDING = {
  shared: {
    label: 'API token',
    hint: 'Kept in this browser tab only, until you close it.',
    intro: () => 'This Crondeck service requires an API token (SERVICE_API_TOKEN).',
    rejected: () => 'The saved API token is no longer accepted by this service. Enter the current token.',
  },
  kubernetes: {
    label: 'Kubernetes token',
    hint: 'Kept in this browser tab only, until you close it or sign out. For a ServiceAccount: kubectl create token NAME.',
    intro: () =>
      'This Crondeck service signs you in with your Kubernetes identity: paste a token the cluster ' +
      'accepts (a ServiceAccount token or an OIDC ID token). What you may see and do is what its RBAC allows you.',
    rejected: (refusal) =>
      `Your token is no longer accepted. The service said: “${refusal}”. Paste a current token.`,
  },
};

/**
 * Asks for the token and checks it against the service before keeping it (sessionStorage: this
 * tab, until it is closed or signed out). `refusal` is the service's 401 message, which says what
 * kind of token it wants; with `rejectedToken` (a kept token stopped working) the prompt says so.
 * Resolves to the caller's session (GET /api/session, the check) once a token was accepted;
 * concurrent calls share one prompt.
 */
export function promptForToken({ rejectedToken = false, refusal = '', kind = tokenKindOf(refusal) } = {}) {
  const words = WORDING[kind] ?? WORDING.shared;
  pending ??= new Promise((resolve) => {
    const input = h('input', {
      type: 'password',
      name: 'token',
      autocomplete: 'current-password',
      spellcheck: 'false',
      required: true,
    });
    const tokenField = field(words.label, input, { hint: words.hint });
    const show = h('input', { type: 'checkbox', id: 'token-show' });
    show.addEventListener('change', () => {
      input.type = show.checked ? 'text' : 'password';
    });
    const submit = h('button', { class: 'btn btn-primary', type: 'submit', text: 'Continue' });
    const intro = rejectedToken ? words.rejected(refusal) : words.intro();
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
        // Any caller the service authenticates may read their session, whatever RBAC lets them list.
        const session = await request('GET', 'api/session', undefined, { token, notifyUnauthorized: false });
        storeToken(token);
        dialog.close('accepted');
        pending = null;
        resolve(session);
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
