// Runs a task at most once per interval however often it is requested, and never twice at
// once: a burst of host events becomes one refresh, and a refresh requested while one is
// running is run once more afterwards so the last event is never missed.
export interface Coalesced {
  request(): void;
  cancel(): void;
}

export function coalesce(task: () => Promise<void>, intervalMs: number): Coalesced {
  let timer: ReturnType<typeof setTimeout> | null = null;
  let running = false;
  let again = false;

  const run = async () => {
    timer = null;
    running = true;
    try {
      await task();
    } finally {
      running = false;
      if (again) {
        again = false;
        request();
      }
    }
  };

  function request(): void {
    if (running) {
      again = true;
      return;
    }
    if (timer === null) timer = setTimeout(() => void run(), intervalMs);
  }

  return {
    request,
    cancel() {
      if (timer !== null) clearTimeout(timer);
      timer = null;
      again = false;
    },
  };
}
