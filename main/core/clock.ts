// The one clock type: services take it as a dependency so tests move time by hand instead of
// sleeping. Milliseconds since the epoch, like Date.now().
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
