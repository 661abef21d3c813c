import { useEffect, useState } from 'react';

/**
 * The local clock, re-read once a second while `active`: it drives countdowns on screen only.
 * It never calls the host; fresh data comes from host events.
 */
export function useSecondTick(active: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [active]);
  return now;
}
