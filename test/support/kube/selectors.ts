import { badRequest } from './errors';
import type { Obj } from './types';

interface Requirement {
  key: string;
  op: 'exists' | '!exists' | '=' | '!=' | 'in' | 'notin';
  values: string[];
}

/** Go's quoteChar, used in selector and JSON syntax errors (`'\u009e'`). */
export function quoteChar(c: string): string {
  if (c === "'") return `'\\''`;
  if (c === '"') return `'"'`;
  const code = c.codePointAt(0)!;
  if (code >= 0x20 && code < 0x7f) return `'${c}'`;
  return `'\\u${code.toString(16).padStart(4, '0')}'`;
}

const tokenRe = /\s*(==|!=|=|!|\(|\)|,|[^\s=!(),]+)/y;

/** labels.Parse of apimachinery: equality, set-based and existence requirements. */
export function parseLabelSelector(text: string): Requirement[] {
  const tokens: string[] = [];
  tokenRe.lastIndex = 0;
  let m: RegExpExecArray | null;
  while (tokenRe.lastIndex < text.length && (m = tokenRe.exec(text))) tokens.push(m[1]!);
  const reqs: Requirement[] = [];
  let i = 0;
  const describe = (t: string | undefined): string => (t === undefined ? 'end of string' : `'${t}'`);
  while (i < tokens.length) {
    let t = tokens[i++]!;
    if (t === '!') {
      reqs.push({ key: tokens[i++] ?? '', op: '!exists', values: [] });
    } else {
      const key = t;
      t = tokens[i] as string;
      if (t === undefined || t === ',') {
        reqs.push({ key, op: 'exists', values: [] });
      } else if (t === '=' || t === '==' || t === '!=') {
        i++;
        reqs.push({ key, op: t === '!=' ? '!=' : '=', values: [tokens[i++] ?? ''] });
      } else if (t === 'in' || t === 'notin') {
        i++;
        if (tokens[i++] !== '(') throw badRequest(`found ${describe(tokens[i - 1])}, expected: '('`);
        const values: string[] = [];
        while (i < tokens.length && tokens[i] !== ')') {
          if (tokens[i] !== ',') values.push(tokens[i]!);
          i++;
        }
        i++;
        reqs.push({ key, op: t, values });
      } else {
        throw badRequest(`found ${describe(t)}, expected: in, notin, =, ==, !=, gt, lt`);
      }
    }
    if (i < tokens.length) {
      if (tokens[i] !== ',')
        throw badRequest(`found ${describe(tokens[i])}, expected: ',' or 'end of string'`);
      i++;
    }
  }
  return reqs;
}

export function matchesLabels(reqs: Requirement[], labels: Record<string, string> | undefined): boolean {
  const l = labels ?? {};
  return reqs.every((r) => {
    const has = Object.prototype.hasOwnProperty.call(l, r.key);
    switch (r.op) {
      case 'exists':
        return has;
      case '!exists':
        return !has;
      case '=':
        return has && l[r.key] === r.values[0];
      case '!=':
        return !has || l[r.key] !== r.values[0];
      case 'in':
        return has && r.values.includes(l[r.key]!);
      case 'notin':
        return !has || !r.values.includes(l[r.key]!);
    }
  });
}

export type FieldGetters = Record<string, (o: Obj) => string | undefined>;

export const META_FIELDS: FieldGetters = {
  'metadata.name': (o) => o.metadata?.name,
  'metadata.namespace': (o) => o.metadata?.namespace,
};

/** fields.Parse plus the resource's supported field labels (400 `field label not supported: …`). */
export function parseFieldSelector(text: string, getters: FieldGetters): (o: Obj) => boolean {
  const checks = text
    .split(',')
    .filter(Boolean)
    .map((part) => {
      const m = /^([^!=]+)(==|!=|=)(.*)$/.exec(part);
      if (!m) throw badRequest(`invalid selector: '${text}'; can't understand '${part}'`);
      const [, field, op, value] = m as unknown as [string, string, string, string];
      const get = getters[field];
      if (!get) throw badRequest(`field label not supported: ${field}`);
      return (o: Obj) => ((get(o) ?? '') === value) === (op !== '!=');
    });
  return (o) => checks.every((c) => c(o));
}
