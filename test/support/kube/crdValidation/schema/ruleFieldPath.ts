/**
 * A validation rule's `fieldPath` (`.spec.size`, `.labels['a.b']`) must name a field the schema
 * declares, through properties or map keys; list items cannot be addressed (17 #86, #87).
 */
import { isPlainObject, type Obj } from '../../types';

/** Splits like the server's scanner: `.`, `[` and `]` alone, everything between as one token. */
function tokens(path: string): string[] {
  return path.split(/([.[\]])/).filter((t) => t !== '');
}

function unquote(tok: string): string | undefined {
  if (tok.length < 2 || !tok.startsWith("'") || !tok.endsWith("'")) return undefined;
  return tok.slice(1, -1).replace(/\\(.)/g, '$1');
}

/** The schema the path leads to, or undefined when the path is not valid. */
export function fieldPathTarget(schema: Obj, path: string): Obj | undefined {
  let current: Obj | undefined = schema;
  const toks = tokens(path);
  const step = (name: string): boolean => {
    if (!current) return false;
    if (isPlainObject(current.properties)) {
      current = current.properties[name] as Obj | undefined;
      return current !== undefined;
    }
    if (current.additionalProperties !== undefined) {
      current = isPlainObject(current.additionalProperties) ? current.additionalProperties : {};
      return true;
    }
    return false;
  };
  for (let i = 0; i < toks.length; i++) {
    const tok = toks[i]!;
    if (tok === '.') {
      const name = toks[++i];
      if (name === undefined || name === '.' || name === '[' || name === ']' || !step(name)) return undefined;
    } else if (tok === '[') {
      const name = unquote(toks[++i] ?? '');
      if (name === undefined || !step(name) || toks[++i] !== ']') return undefined;
    } else {
      return undefined;
    }
  }
  return current;
}
