/**
 * How Go prints values inside field errors (`%q`, `%#v`), which the CRD messages quote verbatim:
 * `Invalid value: []string{"id"}`, `map[string]interface {}{"a":"x", "b":"y"}`, the
 * `apiextensions.ValidationRule{…}` of a CEL error. A non-nil pointer prints its address, which no
 * two runs share: it is rendered `0x<pointer>`, as the kube-api README filters such messages.
 */
import { isPlainObject, type Obj } from '../types';

const POINTER = '0x<pointer>';

const SHORT_ESCAPES: Record<string, string> = {
  '\u0007': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\u000b': '\\v',
  '\\': '\\\\',
  '"': '\\"',
};

/** Go's strconv.Quote (`%q`): printable runes as they are, the rest escaped. */
function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    if (SHORT_ESCAPES[ch]) out += SHORT_ESCAPES[ch];
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else if (/[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Zl}\p{Zp}]/u.test(ch)) {
      out +=
        code > 0xffff
          ? `\\U${code.toString(16).padStart(8, '0')}`
          : `\\u${code.toString(16).padStart(4, '0')}`;
    } else out += ch;
  }
  return `${out}"`;
}

/** `%v` of a float64 or int64 held in an interface{} (Go's shortest `%g`-like form). */
function goNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return String(n);
  const s = String(n);
  return s.replace(/e([+-])(\d)$/, 'e$10$2');
}

/** `%#v` of a JSON value decoded into interface{} (maps print with sorted keys). */
export function goInterfaceValue(v: unknown): string {
  if (v === null || v === undefined) return 'interface {}(nil)';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number') return goNumber(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[]interface {}{${v.map(goInterfaceValue).join(', ')}}`;
  const entries = Object.keys(v as Obj)
    .sort()
    .map((k) => `${goQuote(k)}:${goInterfaceValue((v as Obj)[k])}`);
  return `map[string]interface {}{${entries.join(', ')}}`;
}

/** `%#v` of a []string: `[]string(nil)` when absent, `[]string{"a", "b"}` otherwise. */
export function goStringSlice(v: string[] | undefined | null): string {
  if (!v) return '[]string(nil)';
  return `[]string{${v.map(goQuote).join(', ')}}`;
}

function goPointer(type: string, v: unknown): string {
  return v === undefined || v === null ? `(*${type})(nil)` : `(*${type})(${POINTER})`;
}

function goStructSlice(type: string, items: Obj[] | undefined, render: (o: Obj) => string): string {
  if (!items) return `[]${type}(nil)`;
  return `[]${type}{${items.map(render).join(', ')}}`;
}

/** `%#v` of an apiextensions.ValidationRule (the value CEL compilation errors quote). */
export function goValidationRule(rule: Obj): string {
  return (
    `apiextensions.ValidationRule{Rule:${goQuote(rule.rule ?? '')}, ` +
    `Message:${goQuote(rule.message ?? '')}, ` +
    `MessageExpression:${goQuote(rule.messageExpression ?? '')}, ` +
    `Reason:${goPointer('apiextensions.FieldValueErrorReason', rule.reason)}, ` +
    `FieldPath:${goQuote(rule.fieldPath ?? '')}, ` +
    `OptionalOldSelf:${goPointer('bool', rule.optionalOldSelf)}}`
  );
}

function goColumn(c: Obj): string {
  return (
    `apiextensions.CustomResourceColumnDefinition{Name:${goQuote(c.name ?? '')}, Type:${goQuote(c.type ?? '')}, ` +
    `Format:${goQuote(c.format ?? '')}, Description:${goQuote(c.description ?? '')}, ` +
    `Priority:${c.priority ?? 0}, JSONPath:${goQuote(c.jsonPath ?? '')}}`
  );
}

function goVersion(v: Obj): string {
  return (
    `apiextensions.CustomResourceDefinitionVersion{Name:${goQuote(v.name ?? '')}, ` +
    `Served:${Boolean(v.served)}, Storage:${Boolean(v.storage)}, Deprecated:${Boolean(v.deprecated)}, ` +
    `DeprecationWarning:${goPointer('string', v.deprecationWarning)}, ` +
    `Schema:${goPointer('apiextensions.CustomResourceValidation', v.schema)}, ` +
    `Subresources:${goPointer('apiextensions.CustomResourceSubresources', v.subresources)}, ` +
    `AdditionalPrinterColumns:${goStructSlice('apiextensions.CustomResourceColumnDefinition', v.additionalPrinterColumns, goColumn)}, ` +
    `SelectableFields:${goStructSlice('apiextensions.SelectableField', v.selectableFields, (f) => `apiextensions.SelectableField{JSONPath:${goQuote(f.jsonPath ?? '')}}`)}}`
  );
}

/**
 * `%#v` of the internal []CustomResourceDefinitionVersion. The versions are the internal ones:
 * a schema, subresources or columns shared by all versions have moved to the top level.
 */
export function goVersions(versions: Obj[]): string {
  return `[]apiextensions.CustomResourceDefinitionVersion{${versions.map(goVersion).join(', ')}}`;
}

/** A Go field error's rendering of a bad value of any JSON shape (strings quoted, maps as %#v). */
export function goBadValue(v: unknown): string {
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number') return goNumber(v);
  if (typeof v === 'boolean') return String(v);
  if (v === null || v === undefined) return '"null"';
  if (isPlainObject(v) || Array.isArray(v)) return goInterfaceValue(v);
  return String(v);
}
