// The numbers that bound a PTY session: how output is batched, when reading pauses, how much is
// kept for re-attach and how much goes to the audit log. All in UTF-16 code units ("chars"),
// the unit xterm.js acknowledges in (a string's length).

export interface PtyLimits {
  /** Output read within this window goes out as one event (VS Code's 5 ms). */
  batchMs: number;
  /**
   * A batch this large goes out at once instead of waiting for the window. Each batch costs the
   * console a frame to receive and a task to parse, and between two tasks the browser draws a
   * frame (~7 ms for the console's page here): in 128 K batches xterm.js parsed ~3 ms at a time
   * and drew a frame after nearly each, half its time drawing. 512 K is about one of xterm.js's own
   * 12 ms parsing slices at what this machine parses (25-40 MB/s), so it parses as it does when
   * handed a whole file. Interleaved runs of the bench (3 pairs, 3 rounds each): 13.0 → 15.8 MB/s
   * median, 0.42 → 0.51 of xterm.js alone.
   */
  batchMaxChars: number;
  /**
   * Flow control: reading pauses when the slowest watching console has more than this many
   * chars it has not acknowledged, and resumes when every watching console is below `lowWater`.
   * About three batches in flight, and more than one still queued when the program is let go, so
   * xterm.js never idles through the round trip of the resume (ack → host → read → event); with
   * VS Code's 100 K / 5 K the full path ran at a quarter to a third of xterm.js alone. Ctrl-C is
   * still seen after at most `highWater` of the output it stops: 40-60 ms of parsing here
   * (bench: the Ctrl-C tail, 50 → 59 ms median against the 500 K / 200 K marks of 128 K batches).
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
  batchMaxChars: 512 * 1024,
  highWater: 1_500_000,
  lowWater: 700_000,
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
