// One way to write sizes and ages, for error messages, the CLI and the console alike.
import { describe, expect, it } from 'vitest';
import { formatAgo, formatBytes } from '../../shared/format.js';

describe('formatBytes', () => {
  it('names caps exactly in binary units, with no decimals for a whole unit', () => {
    expect(formatBytes(0)).toBe('0 bytes');
    expect(formatBytes(1)).toBe('1 byte');
    expect(formatBytes(1023)).toBe('1,023 bytes');
    expect(formatBytes(1024)).toBe('1 KiB');
    expect(formatBytes(64 * 1024)).toBe('64 KiB');
    expect(formatBytes(1 << 20)).toBe('1 MiB');
    expect(formatBytes(1.5 * (1 << 20))).toBe('1.5 MiB');
    expect(formatBytes((1 << 20) + 1)).toBe('1 MiB');
    expect(formatBytes(5 * 2 ** 30)).toBe('5 GiB');
    expect(formatBytes(3 * 2 ** 50)).toBe('3,072 TiB');
  });
});

describe('formatAgo', () => {
  const now = Date.UTC(2026, 0, 10, 12, 0, 0);
  it('says how long ago, in the largest unit that reads well', () => {
    expect(formatAgo(now, now)).toBe('0 sec. ago');
    expect(formatAgo(now - 42_000, now)).toBe('42 sec. ago');
    expect(formatAgo(now - 3 * 60_000, now)).toBe('3 min. ago');
    expect(formatAgo(now - 36 * 3_600_000, now)).toBe('36 hr. ago');
    expect(formatAgo(now - 5 * 86_400_000, now)).toBe('5 days ago');
  });
  it('never says a time in the future is ago by a negative amount', () => {
    expect(formatAgo(now + 10_000, now)).toBe('0 sec. ago');
  });
});
