// Recording refused hook requests (hook.refused) without letting them fill the disk: anything on
// the machine can send the hook route bad input or a wrong token, as fast as it likes, and an
// audit log that fills up denies every call. So each kind is recorded at most `perMinute` times a
// minute; the rest are counted, and the next record of that kind says how many were left out
// (`suppressed`), so the log still shows that a flood happened and how big it was.
import type { HookRefusalKind, HookRefusalSink } from './agent-routes.js';

export interface RefusalRecorderOptions {
  record(payload: { kind: HookRefusalKind; reason: string; suppressed?: number }): void;
  now(): number;
  /** Records per kind and minute. Default 20. */
  perMinute?: number;
}

export function hookRefusalRecorder(opts: RefusalRecorderOptions): HookRefusalSink {
  const limit = opts.perMinute ?? 20;
  const windows = new Map<HookRefusalKind, { start: number; recorded: number; suppressed: number }>();
  return (kind, reason) => {
    const now = opts.now();
    let w = windows.get(kind);
    if (!w || now - w.start >= 60_000) {
      w = { start: now, recorded: 0, suppressed: w?.suppressed ?? 0 };
      windows.set(kind, w);
    }
    if (w.recorded >= limit) {
      w.suppressed++;
      return;
    }
    w.recorded++;
    const suppressed = w.suppressed;
    w.suppressed = 0;
    opts.record({ kind, reason, ...(suppressed > 0 ? { suppressed } : {}) });
  };
}
