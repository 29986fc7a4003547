// A job's recent slots as a strip of cells, oldest left, newest right (time reads left to right,
// as in the job page's chart). Each cell has its outcome's colour and glyph, and names its time,
// outcome and reason in its title (hover) and its accessible name.

import { h, replaceChildren, setAttr, setText } from './dom.js';
import { describeSlot, outcomeLook } from './slotLook.js';

export function createSlotStrip() {
  const cells = h('span', { class: 'slot-cells' });
  const note = h('span', { class: 'slot-note muted small', hidden: true });
  const element = h('div', { class: 'slot-strip', role: 'group' }, cells, note);
  let shownKey = null;

  function showNote(text, title = null) {
    shownKey = null;
    replaceChildren(cells);
    setText(note, text);
    setAttr(note, 'title', title);
    note.hidden = false;
    element.hidden = false;
  }

  // A job with no judged slot shows no strip at all: a line saying so on every new job is noise.
  function showNothing() {
    shownKey = null;
    replaceChildren(cells);
    element.hidden = true;
  }

  return {
    element,
    /** Names the strip for a screen reader: "Recent slots of <job>, oldest first". */
    setJobName(name) {
      setAttr(element, 'aria-label', `Recent slots of ${name}, oldest first`);
    },
    /** Shows the slots as the API lists them (newest first), with their `runStatus` (slotRuns.js). */
    update(slots) {
      if (slots.length === 0) {
        showNothing();
        return;
      }
      // Polling hands the same slots again and again: rebuild only on a change.
      const key = slots
        .map((slot) => `${slot.scheduledAt} ${slot.outcome} ${slot.runStatus ?? ''} ${slot.reason ?? ''}`)
        .join('\n');
      if (key === shownKey) return;
      shownKey = key;
      note.hidden = true;
      element.hidden = false;
      replaceChildren(
        cells,
        [...slots].reverse().map((slot) => {
          const look = outcomeLook(slot.outcome, slot.runStatus);
          const label = describeSlot(slot);
          return h(
            'span',
            {
              class: `slot-cell ${look.className}`,
              role: 'img',
              'aria-label': label,
              title: label,
              dataset: {
                outcome: slot.outcome,
                scheduledAt: slot.scheduledAt,
                runStatus: slot.runStatus ?? undefined,
              },
            },
            look.glyph,
          );
        }),
      );
    },
    /** No slot judged for the job yet: nothing to ask the service for. */
    showEmpty() {
      showNothing();
    },
    showError(message) {
      showNote('slots unavailable', message);
    },
  };
}
