/** The spec's message for an unknown label id, shared by the label and link routes. */
export const LABEL_NOT_FOUND = 'Label not found';
