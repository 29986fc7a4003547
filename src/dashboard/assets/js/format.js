// Times are shown in the browser's own time zone; durations and sizes in short human units.
// Always in English, whatever the browser's language: the page's own words are English, and a
// date or "in 5 hours" in another language beside them reads as a mix. (The zone stays the user's.)

const LOCALE = 'en-US';

const dateTime = new Intl.DateTimeFormat(LOCALE, {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});
const sameDayTime = new Intl.DateTimeFormat(LOCALE, {
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});
const shortDateTime = new Intl.DateTimeFormat(LOCALE, {
  weekday: 'short',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
});
const shortWithYear = new Intl.DateTimeFormat(LOCALE, {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
});
// Long units: the short ones abbreviate to "next mo." and "3 hr. ago".
const relative = new Intl.RelativeTimeFormat(LOCALE, { numeric: 'auto', style: 'long' });

export const LOCAL_TIME_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone || 'local time';

function toDate(value) {
  if (!value) return null;
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** "Jan 5, 2026, 02:03:07 PM" in local time, or an em dash. */
export function formatDateTime(value) {
  const date = toDate(value);
  return date ? dateTime.format(date) : '—';
}

/** "02:03:07 PM": the time of day, local. */
export function formatTime(value) {
  const date = toDate(value);
  return date ? sameDayTime.format(date) : '—';
}

/** Time only when the date is today, else a short date and time. */
export function formatCompact(value, now = new Date()) {
  const date = toDate(value);
  if (!date) return '—';
  return date.toDateString() === now.toDateString() ? sameDayTime.format(date) : shortDateTime.format(date);
}

/** "Mon, Nov 23, 02:00": to the minute, with the year only when it is not this year. */
export function formatShort(value, now = new Date()) {
  const date = toDate(value);
  if (!date) return '—';
  return (date.getFullYear() === now.getFullYear() ? shortDateTime : shortWithYear).format(date);
}

const UNITS = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
  ['second', 1],
];

/** "in 5 minutes", "3 hours ago", "tomorrow", "next month", "now". */
export function formatRelative(value, now = Date.now()) {
  const date = toDate(value);
  if (!date) return '';
  const seconds = Math.round((date.getTime() - now) / 1000);
  if (Math.abs(seconds) < 5) return 'now';
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size || unit === 'second') {
      return relative.format(Math.trunc(seconds / size), unit);
    }
  }
  return '';
}

/** "850 ms", "12.3 s", "4 min 05 s", "2 h 03 min". */
export function formatDuration(ms) {
  if (ms === null || ms === undefined || Number.isNaN(ms)) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(seconds < 10 ? 2 : 1)} s`;
  const totalSeconds = Math.round(seconds);
  const minutes = Math.floor(totalSeconds / 60);
  if (minutes < 60) return `${minutes} min ${String(totalSeconds % 60).padStart(2, '0')} s`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}

export function formatBytes(bytes) {
  if (bytes === null || bytes === undefined) return '—';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(unit === 0 || value >= 100 ? 0 : 1)} ${units[unit]}`;
}

export function plural(count, word) {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/**
 * The value for an `<input type="datetime-local">` from a Date, in local time, to the minute.
 */
export function toLocalInputValue(date) {
  const pad = (n) => String(n).padStart(2, '0');
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}`
  );
}

// An ISO 8601 instant as the service writes one in a message: UTC, "Z" or an offset.
const ISO_INSTANT = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})/g;

/**
 * The service's words with every instant in them shown as the page shows times (local, English):
 * a form that works in local time must not answer in UTC.
 */
export function localizeInstants(text) {
  return String(text).replace(ISO_INSTANT, (instant) => formatDateTime(instant));
}
