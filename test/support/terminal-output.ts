// A terminal's output as a test reads it: all of it so far, and a wait for a piece of text (an
// event, not a poll).

/** What a terminal prints, from now on: `text()` so far, and `shows(pattern)` once it appears. */
export function terminalOutput(p: { onData(listener: (d: string | Uint8Array) => void): unknown }): { text: () => string; shows: (pattern: string) => Promise<void> } {
  let text = '';
  const seen: { pattern: string; resolve: () => void }[] = [];
  p.onData((d) => {
    text += typeof d === 'string' ? d : Buffer.from(d).toString();
    for (const w of seen.filter((w) => text.includes(w.pattern))) w.resolve();
  });
  return { text: () => text, shows: (pattern) => new Promise<void>((resolve) => (text.includes(pattern) ? resolve() : seen.push({ pattern, resolve }))) };
}
