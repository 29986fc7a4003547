/**
 * How labels are ordered "by name": case-insensitively, then by the exact name, both in code point
 * order (COLLATE "C"), so that the order is the same on every server whatever its locale.
 */
export const LABEL_NAME_ORDER = (alias: string) =>
  `lower(${alias}.name) COLLATE "C", ${alias}.name COLLATE "C"`;
