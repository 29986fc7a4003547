/**
 * The mailbox room: one more index on the links between messages and labels, for the filter of
 * several labels (src/mailbox/filters/filterQueries.ts).
 *
 * The filter answers the messages having ALL listed labels by their latest listed label date. It
 * finds a date threshold from the newest members, then needs every link of a listed label dated
 * after the threshold that belongs to an older member. Members are known per bitmap chunk (message
 * id >> 15, the layout of migration 002), and a chunk without members has nothing to give: this
 * index reads one label's links of one chunk, newest label date first, so the filter reads only
 * the chunks that hold members and, in each, only the links after the threshold (mostly few:
 * labels put on old mail long after it arrived). The date index of migration 002 is ordered by
 * date alone: it would stream every link of a large label since the threshold, members or not,
 * which is what made members crowded in old mail slow (tens of milliseconds at a million messages).
 *
 * Built inside the migration's transaction: on an existing mailbox, writes to the links wait for
 * it (about 2 s for the 3 million links of the bench data set).
 */
export const labelChunkDatesSchema = `
CREATE INDEX mail_message_labels_by_chunk
  ON mail_message_labels (label_id, (message_id >> 15), labeled_at DESC, message_id DESC);
`;
