// Dates and durations as an operator reads them: local time, unambiguous, compact.

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** 2025-11-22 14:03:07 in local time. */
export function formatDateTime(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** 14:03:07.123 for events of today, the full date otherwise. */
export function formatEventTime(ms: number, now = Date.now()): string {
  const d = new Date(ms);
  const today = new Date(now);
  const sameDay = d.getFullYear() === today.getFullYear() && d.getMonth() === today.getMonth() && d.getDate() === today.getDate();
  const time = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
  return sameDay ? time : `${formatDateTime(ms).slice(0, 10)} ${time}`;
}

// Relative ages are shared with the CLI, so both say "3 min. ago" the same way.
export { formatAgo } from '../../../shared/format.ts';

/** ISO 8601 for <time dateTime>. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

/** "1 error", "2 errors", "0 warnings": a count with its noun in the right number. */
export function countOf(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}
