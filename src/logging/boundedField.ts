/** The most characters of request data a log line repeats in one field. */
const LOG_FIELD_BOUND = 120;

/**
 * `value` as a log line may repeat it when it comes from a request (a path id, a reason quoting a
 * field): whole when short, else its start and its length. Whoever can send requests must not be
 * able to choose how much the log writes.
 */
export function boundedField(value: unknown, bound = LOG_FIELD_BOUND): string | undefined {
  if (value === undefined || value === null) return undefined;
  const text = String(value);
  return text.length <= bound ? text : `${text.slice(0, bound)}… (${text.length} characters)`;
}
