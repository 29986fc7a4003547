/** A message as lists show it: the spec's message summary, bodies left out. */
export interface MessageSummary {
  id: number;
  uid: number | null;
  message_id: string | null;
  in_reply_to: string | null;
  subject: string | null;
  from_address: string | null;
  from_name: string | null;
  to_addresses: string | null;
  date: Date | null;
  flags: string[] | null;
  size: number | null;
  has_attachments: boolean;
  preview: string | null;
}

/** A summary row as SQL returns it: `uid` is a bigint, which pg hands over as a string. */
export type MessageSummaryRow = Omit<MessageSummary, 'uid'> & { uid: string | null; identity_id: number };

/** The summary's fields in the spec's order; each is the column of that name of `mail_messages`. */
export const SUMMARY_FIELDS: readonly (keyof MessageSummary)[] = [
  'id',
  'uid',
  'message_id',
  'in_reply_to',
  'subject',
  'from_address',
  'from_name',
  'to_addresses',
  'date',
  'flags',
  'size',
  'has_attachments',
  'preview',
];

/** The columns of a summary row, from `mail_messages` aliased `m`. */
export const SUMMARY_COLUMNS = ['identity_id', ...SUMMARY_FIELDS].map((field) => `m.${field}`).join(', ');

/** The summary of a row, in the spec's field order. */
export function toMessageSummary(row: MessageSummaryRow): MessageSummary {
  const summary = Object.fromEntries(
    SUMMARY_FIELDS.map((field) => [field, row[field]]),
  ) as unknown as MessageSummary;
  summary.uid = row.uid === null ? null : Number(row.uid);
  return summary;
}

/**
 * A page of summaries of `m` as one JSON array, built by PostgreSQL in the spec's field order:
 * the text is what `JSON.stringify` of `toMessageSummary` writes (dates in UTC with milliseconds,
 * like `Date#toJSON`), and the service sends it as it comes. A list of fifty summaries costs the
 * service more to turn into objects and back into JSON than the database takes to find them.
 * `identityId` adds `identity_id` after `id`, as the all-labels filter answers it.
 */
export function summariesJsonArray(order: string, options: { identityId: boolean }): string {
  const fields = options.identityId ? ['id', 'identity_id', ...SUMMARY_FIELDS.slice(1)] : SUMMARY_FIELDS;
  // Dates as `Date#toJSON` writes them; every other value as to_json writes it.
  const valueOf = (field: string) =>
    field === 'date' ? `to_char(m.date AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')` : `m.${field}`;
  // Written field by field: json_build_object and json_agg would put spaces that JSON.stringify
  // does not, and jsonb would reorder the keys.
  const object = fields
    .map(
      (field, index) =>
        `'${index === 0 ? '{' : ','}"${field}":' || coalesce(to_json(${valueOf(field)})::text, 'null')`,
    )
    .join(' || ');
  return `'[' || coalesce(string_agg(${object} || '}', ',' ORDER BY ${order}), '') || ']'`;
}
