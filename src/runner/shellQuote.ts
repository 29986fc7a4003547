/** Single-quotes a string for sh: the shell reads it back as exactly these characters. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
