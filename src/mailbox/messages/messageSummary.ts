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

/** The columns of a summary row, from `mail_messages` aliased `m`. */
export const SUMMARY_COLUMNS = `m.id, m.identity_id, m.uid, m.message_id, m.in_reply_to, m.subject,
  m.from_address, m.from_name, m.to_addresses, m.date, m.flags, m.size, m.has_attachments, m.preview`;

/** The summary of a row, in the spec's field order. */
export function toMessageSummary(row: MessageSummaryRow): MessageSummary {
  return {
    id: row.id,
    uid: row.uid === null ? null : Number(row.uid),
    message_id: row.message_id,
    in_reply_to: row.in_reply_to,
    subject: row.subject,
    from_address: row.from_address,
    from_name: row.from_name,
    to_addresses: row.to_addresses,
    date: row.date,
    flags: row.flags,
    size: row.size,
    has_attachments: row.has_attachments,
    preview: row.preview,
  };
}

/** The summary plus `identity_id`, as the all-labels filter answers it. */
export function toMessageSummaryWithIdentity(
  row: MessageSummaryRow,
): MessageSummary & { identity_id: number } {
  const { id, ...rest } = toMessageSummary(row);
  return { id, identity_id: row.identity_id, ...rest };
}
