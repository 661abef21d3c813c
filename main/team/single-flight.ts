// One run at a time, and no queue: a call while a run is under way asks for exactly one more run
// after it (which sees everything that changed meanwhile), so a flood of notifications costs at most
// two runs, not one per notification.
export function singleFlight(run: () => Promise<void>, stopped: () => boolean = () => false): () => Promise<void> {
  let running: Promise<void> | null = null;
  let again = false;
  return () => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        await run();
      } while (again && !stopped());
    })().finally(() => (running = null));
    return running;
  };
}
