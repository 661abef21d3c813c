// Sizes and ages as people read them, the same on the command line, in error messages and in the
// console. Binary units (KiB, MiB), because every cap Gatehouse enforces is a power of two and a
// message must name the cap exactly ("over the 1 MiB cap"), never a rounded decimal.

const UNITS = ['KiB', 'MiB', 'GiB', 'TiB'] as const;

/**
 * Made on first use: the first Intl formatter of a process loads ICU's locale data (~35 ms), which
 * every `gatehouse` command paid at start-up though few print a size or an age.
 */
function once<T>(make: () => T): () => T {
  let made: T | undefined;
  return () => (made ??= make());
}
const number = once(() => new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 }));
const exact = once(() => new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 }));

/** "512 bytes", "64 KiB", "1.5 MiB": at most two decimals, none when the size is a whole unit. */
export function formatBytes(n: number): string {
  if (!Number.isFinite(n) || n < 1024) return `${exact().format(n)} ${n === 1 ? 'byte' : 'bytes'}`;
  let value = n / 1024;
  let unit = 0;
  for (; value >= 1024 && unit < UNITS.length - 1; unit++) value /= 1024;
  return `${number().format(value)} ${UNITS[unit]}`;
}

const relative = once(() => new Intl.RelativeTimeFormat('en', { numeric: 'always', style: 'short' }));

/** "3 min. ago", "2 hr. ago", "5 days ago": for a secondary line, never the only record of a time. */
export function formatAgo(ms: number, now: number = Date.now()): string {
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 60) return relative().format(-s, 'second');
  const m = Math.round(s / 60);
  if (m < 60) return relative().format(-m, 'minute');
  const h = Math.round(m / 60);
  // Up to two days in hours: "36 hr. ago" says more than "2 days ago".
  if (h < 48) return relative().format(-h, 'hour');
  return relative().format(-Math.round(h / 24), 'day');
}
