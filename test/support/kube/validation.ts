import { fieldErr, type FieldError } from './errors';

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
export const DNS1035_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

function isDnsLabel(s: string): boolean {
  return s.length <= 63 && DNS1123_LABEL.test(s);
}

export function validateLabelName(field: string, name: string): FieldError[] {
  return isDnsLabel(name) ? [] : [fieldErr.invalid(field, name, LABEL_MSG)];
}

const RANDOM_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** The 5 random characters generateName appends (apiserver's names.SimpleNameGenerator). */
export function randomSuffix(n = 5): string {
  let s = '';
  for (let i = 0; i < n; i++) s += RANDOM_ALPHABET[Math.floor(Math.random() * RANDOM_ALPHABET.length)];
  return s;
}
