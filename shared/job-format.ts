// How a job's progress reads, in the console and on the command line alike.
import type { JobView } from './contract.js';

type Progress = Pick<JobView, 'done' | 'total' | 'unit' | 'state'>;

export function jobPercent(j: Progress): number {
  if (!j.total) return j.state === 'done' ? 100 : 0;
  return Math.min(100, Math.floor((j.done * 100) / j.total));
}

/** "12,000 of 60,000 events (20%)", or "12,000 events" while the size is unknown. */
export function jobAmount(j: Progress): string {
  const n = (x: number) => x.toLocaleString('en-US');
  if (j.total === null) return `${n(j.done)} ${j.unit}`;
  return `${n(j.done)} of ${n(j.total)} ${j.unit} (${jobPercent(j)}%)`;
}
