// What the PTY layer is made of, as seen by the rest of the host. The PtyManager depends only
// on these shapes, so tests and the runner can hand it any spawn function and event sink.

/** The part of node-pty's IPty the manager uses. */
export interface PtyProcess {
  readonly pid: number;
  /** Strings when the spawn decoded them (node-pty's default), bytes otherwise. */
  onData(listener: (data: string | Uint8Array) => void): { dispose(): void };
  onExit(listener: (e: { exitCode: number; signal?: number }) => void): { dispose(): void };
  write(data: string): void;
  resize(cols: number, rows: number): void;
  kill(signal?: string): void;
  /** Stops reading the master side: the kernel buffer fills and the program blocks on write. */
  pause(): void;
  resume(): void;
  /** The leader is gone: let go of whatever keeps the PTY open, so the end of output is seen. */
  release?(): void;
  /**
   * Where the spawn itself learns that the leader ended (the fork thread's waitpid): the
   * session then need not poll /proc for it. Called once; at once (next turn) if it already ended.
   */
  onLeaderExit?(listener: () => void): void;
  /**
   * The session's processes left after the leader's exit (process-tree.ts sessionProcesses),
   * found off the event loop; null when that is not possible now (the caller finds them itself).
   */
  sessionProcesses?(forksBefore: number | null): Promise<number[] | null>;
}

export interface PtySpawnOptions {
  cwd: string;
  env: Record<string, string>;
  cols: number;
  rows: number;
}

/** Starts a program in a new PTY; node-pty's forks on a thread of its own, so it answers later. */
export type PtySpawn = (command: string, args: string[], opts: PtySpawnOptions) => PtyProcess | Promise<PtyProcess>;

/** Who asked for a session and on whose behalf: recorded with every audit event of it. */
export interface PtyOrigin {
  /** As the audit log names actors: "operator:alice", "agent:claude-code". */
  actor: string;
  /** The tool that runs in it: "shell" (built-in) or a plugin's tool with `pty = true`. */
  tool: string;
  /** The tool call it serves, when an agent asked for it. */
  callId?: string;
  /** The plugin that provides the tool, for plugin tools. */
  plugin?: string;
}

export interface PtyStartOptions {
  command: string;
  args?: string[];
  /** Default: the operator's home folder. */
  cwd?: string;
  /** The whole environment the program sees (TERM and COLORTERM are added when missing). Default: the host's. */
  env?: Record<string, string>;
  cols?: number;
  rows?: number;
  /** What the Terminals list shows. Default: the command line. */
  title?: string;
  origin: PtyOrigin;
}

export type PtyState = 'running' | 'exited';

export interface PtyExit {
  exitCode: number | null;
  /** Signal name ("SIGKILL") when a signal ended it. */
  signal: string | null;
}

/** A finished session's exit and the output it kept (PtyManager.exitWithOutput). */
export interface PtyFinished {
  exit: PtyExit;
  /** The kept scrollback, oldest first. */
  output: string;
  /** Older output was dropped to keep the scrollback bounded. */
  truncated: boolean;
}

export interface PtyController {
  operator: string;
  /** The console connection that took over ("serve-3", "electron"). */
  console: string;
  at: number;
}

/** One session as the Terminals view lists it (the contract's terminal session). */
export interface PtySessionInfo {
  id: string;
  title: string;
  command: string;
  args: string[];
  cwd: string;
  tool: string;
  actor: string;
  callId: string | null;
  state: PtyState;
  pid: number | null;
  startedAt: number;
  endedAt: number | null;
  exitCode: number | null;
  signal: string | null;
  cols: number;
  rows: number;
  /** Who may type; null until someone takes over. */
  controller: PtyController | null;
  /** Whether the asking console is the controller. */
  youControl: boolean;
  /** Reading is paused because a watching console is behind (flow control). */
  paused: boolean;
  /** Characters of output so far. */
  outputChars: number;
  /** The operator who killed it, if one did. */
  killedBy: string | null;
  /** Consoles attached (watching) right now. */
  watchers: number;
}

export interface PtyAttachment {
  session: PtySessionInfo;
  /** The retained scrollback, oldest first. */
  buffer: string;
  /** The seq of the last output batch the buffer contains (0: none yet). Later events have higher seqs. */
  seq: number;
  /** Older output was dropped to keep the scrollback bounded. */
  truncated: boolean;
}

/** An output batch as it goes to consoles. */
export interface PtyOutputEvent {
  id: string;
  seq: number;
  data: string;
}

export type PtyChange = 'started' | 'exited' | 'controller';

/** Where the manager sends what consoles should see. */
export interface PtyEvents {
  output(event: PtyOutputEvent): void;
  changed(event: { id: string; change: PtyChange }): void;
}

/** An audit event as the host's audit store takes it. */
export interface PtyAuditEvent {
  type: string;
  actor: string;
  payload: Record<string, unknown>;
}
