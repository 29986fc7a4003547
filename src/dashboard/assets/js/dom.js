// DOM helpers. Everything a user or a job produced reaches the page through text nodes and
// attributes set here: this module never parses HTML, so data cannot become markup.

/**
 * Creates an element. `props`: `class`, `text`, `dataset`, `on<event>` listeners, boolean
 * properties (`hidden`, `disabled`, `checked`, ...) and any other attribute. Children may be
 * nodes, strings (as text), numbers, or null/false (skipped), nested in arrays.
 */
export function h(tag, props = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') element.className = value;
    else if (key === 'text') element.textContent = String(value);
    else if (key === 'dataset') Object.assign(element.dataset, value);
    else if (key.startsWith('on') && typeof value === 'function') {
      element.addEventListener(key.slice(2).toLowerCase(), value);
    } else if (value === true) {
      if (key in element) element[key] = true;
      else element.setAttribute(key, '');
    } else if (key === 'value' && 'value' in element) element.value = value;
    else element.setAttribute(key, String(value));
  }
  append(element, children);
  return element;
}

function append(parent, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else if (child instanceof Node) parent.appendChild(child);
    else parent.appendChild(document.createTextNode(String(child)));
  }
}

/** Replaces all children of `parent`. */
export function replaceChildren(parent, ...children) {
  parent.replaceChildren();
  append(parent, children);
}

/** Sets text only when it changed, so polling does not disturb a selection or a screen reader. */
export function setText(element, text) {
  const value = String(text ?? '');
  if (element.textContent !== value) element.textContent = value;
}

export function setAttr(element, name, value) {
  if (value === null || value === undefined) {
    if (element.hasAttribute(name)) element.removeAttribute(name);
  } else if (element.getAttribute(name) !== String(value)) {
    element.setAttribute(name, String(value));
  }
}

export function byId(id) {
  const element = document.getElementById(id);
  if (!element) throw new Error(`missing element #${id}`);
  return element;
}

let idCounter = 0;
/** A unique id for label/control pairs built at run time. */
export function uid(prefix = 'id') {
  idCounter += 1;
  return `${prefix}-${idCounter}`;
}

/** A labelled form field: label, control, optional hint and an error line tied by aria-describedby. */
export function field(labelText, control, { hint, wide, span } = {}) {
  const id = control.id || uid('field');
  control.id = id;
  const hintEl = hint ? h('div', { class: 'hint', id: `${id}-hint` }, hint) : null;
  const errorEl = h('div', { class: 'field-error', id: `${id}-error`, hidden: true });
  control.setAttribute('aria-describedby', [hintEl?.id, errorEl.id].filter(Boolean).join(' '));
  const wrapper = h(
    'div',
    { class: wide ? 'field field-wide' : span === 2 ? 'field field-span2' : 'field' },
    h('label', { for: id }, labelText),
    control,
    hintEl,
    errorEl,
  );
  const parts = { wrapper, control, hint: hintEl, error: errorEl };
  // Typing again withdraws the complaint; it comes back on the next check if still true.
  control.addEventListener('input', () => setFieldError(parts, null));
  return parts;
}

/** Shows or clears the error line of a `field()`. */
export function setFieldError(fieldParts, message) {
  setText(fieldParts.error, message ?? '');
  fieldParts.error.hidden = !message;
  if (message) fieldParts.control.setAttribute('aria-invalid', 'true');
  else fieldParts.control.removeAttribute('aria-invalid');
}

/** Keeps keyed rows of a container in the order of `items`, creating, updating and removing rows. */
export function reconcile(container, rowsByKey, items, keyOf, create, update) {
  const wanted = new Set();
  const ordered = [];
  for (const item of items) {
    const key = keyOf(item);
    wanted.add(key);
    let row = rowsByKey.get(key);
    if (!row) {
      row = create(item);
      rowsByKey.set(key, row);
    }
    update(row, item);
    ordered.push(row);
  }
  for (const [key, row] of rowsByKey) {
    if (!wanted.has(key)) {
      row.remove();
      rowsByKey.delete(key);
    }
  }
  // Move only rows that are out of place: moving a node would take the keyboard focus from it.
  let cursor = container.firstElementChild;
  for (const row of ordered) {
    if (row === cursor) cursor = cursor.nextElementSibling;
    else container.insertBefore(row, cursor);
  }
}
