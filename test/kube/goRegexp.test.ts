import { goRegexpError } from '../support/kube/crdValidation/schema/goRegexp';

/** A CRD `pattern` is compiled by Go's regexp package: what it accepts, and its words when it does not. */
describe("Go's regexp syntax for CRD patterns", () => {
  it.each([
    '^[a-z][a-z0-9-]*$',
    '^(\\S+\\s+){4}\\S+$',
    '(?i)^abc$',
    '(?i:ab)c',
    '(?P<year>\\d{4})-(?<month>\\d{2})',
    '\\p{L}+\\pN',
    '[[:alpha:]_]+',
    'a{2,}b{,3}',
    '\\x41\\x{1F600}',
    '[a\\-z]',
  ])('accepts %s', (pattern) => {
    expect(goRegexpError(pattern)).toBeUndefined();
  });

  it.each([
    ['^(abc', 'missing closing ): `^(abc`'],
    ['abc)', 'unexpected ): `abc)`'],
    ['^(?=.*[0-9])[a-z0-9]+$', 'invalid or unsupported Perl syntax: `(?=`'],
    ['a(?!b)', 'invalid or unsupported Perl syntax: `(?!`'],
    ['(?<=a)b', 'invalid named capture: `(?<=a)b`'],
    ['(?P=name)', 'invalid or unsupported Perl syntax: `(?P`'],
    ['[a-', 'missing closing ]: `[a-`'],
    ['[z-a]', 'invalid character class range: `z-a`'],
    ['*a', 'missing argument to repetition operator: `*`'],
    ['a**', 'invalid nested repetition operator: `**`'],
    ['a{2,1}', 'invalid repeat count: `{2,1}`'],
    ['\\1', 'invalid escape sequence: `\\1`'],
    ['a\\', 'trailing backslash at end of expression: ``'],
  ])('refuses %s', (pattern, message) => {
    expect(goRegexpError(pattern)).toBe(`error parsing regexp: ${message}`);
  });
});
