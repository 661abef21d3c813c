// The numbers that bound a PTY session: how output is batched, when reading pauses, how much is
// kept for re-attach and how much goes to the audit log. All in UTF-16 code units ("chars"),
// the unit xterm.js acknowledges in (a string's length).

export interface PtyLimits {
  /** Output read within this window goes out as one event (VS Code's 5 ms). */
  batchMs: number;
  /**
   * A batch this large goes out at once instead of waiting for the window. Each batch costs the
   * console a frame to receive and parse and an acknowledgment to send, whatever its size. 128 K
   * rather than 64 K: a flood reached xterm.js 2–9% faster in interleaved runs of the bench (29.8
   * and 32.6 MB/s against 29.1 and 31.8; 5 rounds each), within what runs vary by, and the Ctrl-C
   * tail, bounded by `highWater`, stayed the same (43 ms). 256 K was slower: the acknowledgments
   * came too coarse for the low-water mark.
   */
  batchMaxChars: number;
  /**
   * Flow control: reading pauses when the slowest watching console has more than this many
   * chars it has not acknowledged, and resumes when every watching console is below `lowWater`.
   * xterm.js's flow-control guide's numbers (5 and 2 callbacks of 100 K): the console still has
   * `lowWater` queued when the program is let go, about 5 ms of parsing, which covers the round
   * trip of the resume, so xterm.js parses in full 12 ms slices instead of idling between turns
   * and drawing a frame per 100 K (VS Code's 100 K / 5 K ran at a quarter to a third of xterm.js
   * alone). Ctrl-C is still seen after at most `highWater` of the output it stops, ~13 ms of
   * parsing for text.
   */
  highWater: number;
  lowWater: number;
  /** Output kept per session so a console can re-attach without losing any (the last N chars). */
  scrollbackChars: number;
  /** A finished session keeps this much of its scrollback. */
  finishedScrollbackChars: number;
  /** Finished sessions listed (and re-attachable); older ones are forgotten. */
  maxFinished: number;
  /** Largest `pty.transcript` event. */
  transcriptChunkChars: number;
  /** Pending transcript is written this long after its first char… */
  transcriptFlushMs: number;
  /** …or at once when this much is pending. */
  transcriptPendingMaxChars: number;
  /**
   * Transcript chars recorded per session. Past it, one `pty.transcript-capped` event says so
   * and only the last `transcriptTailChars` go into `pty.exited`: 100 MB of `yes` must not
   * become thousands of audit rows.
   */
  transcriptMaxChars: number;
  transcriptTailChars: number;
  /** Largest single input (a paste). */
  maxInputChars: number;
  /**
   * Typing a tool's input paced on its echo (typing.ts): after this long of reading with no
   * echo, the terminal is taken not to echo and the rest is written at once.
   */
  typingEchoWaitMs: number;
}

export const DEFAULT_PTY_LIMITS: PtyLimits = {
  batchMs: 5,
  batchMaxChars: 128 * 1024,
  highWater: 500_000,
  lowWater: 200_000,
  scrollbackChars: 1_000_000,
  finishedScrollbackChars: 256 * 1024,
  maxFinished: 20,
  transcriptChunkChars: 16 * 1024,
  transcriptFlushMs: 500,
  transcriptPendingMaxChars: 1024 * 1024,
  transcriptMaxChars: 8 * 1024 * 1024,
  transcriptTailChars: 16 * 1024,
  maxInputChars: 64 * 1024,
  // Long enough for a program that is slow to start reading on a loaded machine (it is then
  // still paced), short for the few that turn echo off before reading their input.
  typingEchoWaitMs: 2000,
};
