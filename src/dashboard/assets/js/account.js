// The top bar's part of signing in: who the page is signed in as (from the session), the namespace
// it shows, and signing out. A service without namespaces (local mode) shows no selector, and one
// without a token neither a name nor a way out.

import { forgetToken, storedToken } from './api.js';
import { byId, h, replaceChildren, setAttr, setText } from './dom.js';
import { chooseNamespace, chosenNamespace } from './namespaceChoice.js';
import { currentSession, listableNamespaces } from './session.js';

/** `onNamespaceChange(name)`: the person chose another namespace ('' for all of theirs). */
export function createAccountPanel({ onNamespaceChange }) {
  const picker = byId('namespace-picker');
  const select = byId('namespace');
  const account = byId('account');
  const accountName = byId('account-name');
  const signOut = byId('forget-token');

  select.addEventListener('change', () => {
    chooseNamespace(select.value);
    onNamespaceChange(select.value);
  });
  // Signing out forgets the token (and the namespace with it); the reload then asks for a token.
  signOut.addEventListener('click', () => {
    forgetToken();
    chooseNamespace('');
    location.reload();
  });

  return {
    render() {
      const session = currentSession();
      const names = listableNamespaces();
      picker.hidden = names.length === 0;
      const key = names.join('\n');
      if (select.dataset.key !== key) {
        select.dataset.key = key;
        replaceChildren(
          select,
          h('option', { value: '' }, 'All namespaces'),
          names.map((name) => h('option', { value: name }, name)),
        );
      }
      select.value = chosenNamespace();

      const user = session?.user ?? null;
      account.hidden = !user;
      setText(accountName, user?.username ?? '');
      const groups = user?.groups?.length ? ` (groups: ${user.groups.join(', ')})` : '';
      setAttr(account, 'title', user ? `Signed in as ${user.username}${groups}` : null);

      signOut.hidden = !storedToken();
      setText(signOut, session?.auth === 'kubernetes' ? 'Sign out' : 'Forget token');
    },
  };
}
