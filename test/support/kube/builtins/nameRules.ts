/**
 * The string rules of apimachinery's util/validation (and the few of api/validation/path) with
 * their exact messages: each returns the list of problems, empty when the value is fine.
 */

/** RegexError: the message, examples joined by "',  or '", and the pattern. */
function regexError(msg: string, pattern: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${pattern}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${pattern}')`;
}

const maxLenError = (n: number) => `must be no more than ${n} characters`;
const EMPTY_ERROR = 'must be non-empty';

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const WILDCARD_FMT = `\\*\\.${DNS1123_SUBDOMAIN_FMT}`;
const CONFIG_MAP_KEY_FMT = '[-._a-zA-Z0-9]+';
const PERCENT_FMT = '[0-9]+%';

const whole = (fmt: string) => new RegExp(`^${fmt}$`);

export function isDns1123Label(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 63) errs.push(maxLenError(63));
  if (!whole(DNS1123_LABEL_FMT).test(v)) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
        DNS1123_LABEL_FMT,
        'my-name',
        '123-abc',
      ),
    );
  }
  return errs;
}

export function isDns1123Subdomain(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 253) errs.push(maxLenError(253));
  if (!whole(DNS1123_SUBDOMAIN_FMT).test(v)) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        DNS1123_SUBDOMAIN_FMT,
        'example.com',
      ),
    );
  }
  return errs;
}

export function isDns1035Label(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 63) errs.push(maxLenError(63));
  if (!whole(DNS1035_LABEL_FMT).test(v)) {
    errs.push(
      regexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
        DNS1035_LABEL_FMT,
        'my-name',
        'abc-123',
      ),
    );
  }
  return errs;
}

export function isWildcardDns1123Subdomain(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 253) errs.push(maxLenError(253));
  if (!whole(WILDCARD_FMT).test(v)) {
    errs.push(
      regexError(
        "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character",
        WILDCARD_FMT,
        '*.example.com',
      ),
    );
  }
  return errs;
}

const QUALIFIED_NAME_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

export function isQualifiedName(v: string): string[] {
  const errs: string[] = [];
  const parts = v.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push(`prefix part ${EMPTY_ERROR}`);
    else errs.push(...isDns1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [
      `a qualified name ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push(`name part ${EMPTY_ERROR}`);
  else if (name.length > 63) errs.push(`name part ${maxLenError(63)}`);
  if (!whole(QUALIFIED_NAME_FMT).test(name)) {
    errs.push(
      `name part ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`,
    );
  }
  return errs;
}

export function isValidLabelValue(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 63) errs.push(maxLenError(63));
  if (!whole(LABEL_VALUE_FMT).test(v)) {
    errs.push(
      regexError(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        LABEL_VALUE_FMT,
        'MyValue',
        'my_value',
        '12345',
      ),
    );
  }
  return errs;
}

export function isConfigMapKey(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 253) errs.push(maxLenError(253));
  if (!whole(CONFIG_MAP_KEY_FMT).test(v)) {
    errs.push(
      regexError(
        "a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
        CONFIG_MAP_KEY_FMT,
        'key.name',
        'KEY_NAME',
        'key-name',
      ),
    );
  }
  if (v === '.') errs.push("must not be '.'");
  else if (v === '..') errs.push("must not be '..'");
  else if (v.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

/** IANA_SVC_NAME: what container ports and named target ports may be called. */
export function isValidPortName(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 15) errs.push(maxLenError(15));
  if (!/^[-a-z0-9]+$/.test(v))
    errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(v)) errs.push('must contain at least one letter (a-z)');
  if (v.includes('--')) errs.push('must not contain consecutive hyphens');
  if (v.length > 0 && (v.startsWith('-') || v.endsWith('-')))
    errs.push('must not begin or end with a hyphen');
  return errs;
}

export function isValidPortNum(n: number): string[] {
  return n >= 1 && n <= 65535 ? [] : ['must be between 1 and 65535, inclusive'];
}

/** The relaxed rule of RelaxedEnvironmentVariableValidation (beta, on in v1.32; 19 #25, #26). */
export function isRelaxedEnvVarName(v: string): string[] {
  for (const ch of v) {
    const c = ch.codePointAt(0)!;
    if (c < 32 || c > 126 || ch === '=') {
      return [
        "a valid environment variable name must consist only of printable ASCII characters other than '='",
      ];
    }
  }
  return [];
}

export function isValidPercent(v: string): string[] {
  return whole(PERCENT_FMT).test(v)
    ? []
    : [
        regexError(
          "a valid percent string must be a numeric string followed by an ending '%'",
          PERCENT_FMT,
          '1%',
          '93%',
        ),
      ];
}

/** User and group ids: 0 … 2^31-1. */
export function isValidId(n: number): string[] {
  return n >= 0 && n <= 2147483647 ? [] : ['must be between 0 and 2147483647, inclusive'];
}

/** ValidatePathSegmentName (RBAC object and roleRef names). */
export function isPathSegmentName(v: string): string[] {
  for (const bad of ['.', '..']) if (v === bad) return [`may not be '${bad}'`];
  const errs: string[] = [];
  for (const bad of ['/', '%']) if (v.includes(bad)) errs.push(`may not contain '${bad}'`);
  return errs;
}

/** A name used as a prefix (generateName) may end in '-' (apimachinery's maskTrailingDash). */
export function asPrefix(v: string): string {
  return v.length > 1 && v.endsWith('-') ? `${v.slice(0, -1)}a` : v;
}
