// The namespace the page shows ('' for every namespace the caller may list), kept for the tab's
// session like the token: a reload keeps it, closing the tab or signing out forgets it. Only a
// service whose jobs have namespaces (Kubernetes mode) offers a choice (session.js).

const NAMESPACE_KEY = 'crondeck.namespace';

let chosen = readChosen();

function readChosen() {
  try {
    return sessionStorage.getItem(NAMESPACE_KEY) ?? '';
  } catch {
    return '';
  }
}

export function chosenNamespace() {
  return chosen;
}

export function chooseNamespace(name) {
  chosen = name ?? '';
  try {
    if (chosen) sessionStorage.setItem(NAMESPACE_KEY, chosen);
    else sessionStorage.removeItem(NAMESPACE_KEY);
  } catch {
    // Storage refused (a private window's quota): the choice lasts until the page is reloaded.
  }
}
