// A real `gatehouse serve` process for a spec, with its own temporary GATEHOUSE_HOME.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';

const cli = join(import.meta.dirname, '..', '..', 'bin', 'gatehouse.js');
const LINE = /^Gatehouse console: (http:\/\/[^/]+\/)#code=([A-Za-z0-9_-]+)$/m;

export class ServeHost {
  readonly home: string;
  readonly token: string;
  port = 0;
  baseUrl = '';
  private child: ChildProcess | null = null;
  output = '';

  /** More arguments for `gatehouse serve` (e.g. --team URL --team-member NAME). */
  private readonly args: string[];
  private readonly env: NodeJS.ProcessEnv;

  constructor(opts: { home?: string; token?: string; args?: string[]; env?: NodeJS.ProcessEnv } = {}) {
    this.home = opts.home ?? mkdtempSync(join(tmpdir(), 'gatehouse-e2e-'));
    this.token = opts.token ?? randomBytes(24).toString('base64url');
    this.args = opts.args ?? [];
    this.env = opts.env ?? {};
  }

  /**
   * A URL an operator opens, as `gatehouse url` makes it: a one-time code in the fragment,
   * good for one page (the operator token never enters a browser).
   */
  async newConsoleUrl(): Promise<string> {
    const res = await fetch(new URL('/api/console-link', this.baseUrl), { method: 'POST', headers: { authorization: `Bearer ${this.token}` } });
    const body = (await res.json()) as { ok: boolean; result?: { url: string } };
    if (!body.ok || !body.result) throw new Error(`the host made no console link (HTTP ${res.status})`);
    return body.result.url;
  }

  /** Starts the host and resolves once it printed its console line. */
  async start(): Promise<void> {
    // The token from the environment: on the command line every process could read it.
    const child = spawn(process.execPath, [cli, 'serve', '--port', String(this.port), '--home', this.home, ...this.args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...this.env, GATEHOUSE_NO_ELECTRON: '1', GATEHOUSE_TOKEN: this.token },
    });
    this.child = child;
    await new Promise<void>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        this.output += chunk.toString();
        const m = LINE.exec(this.output);
        if (m) {
          this.baseUrl = m[1]!;
          this.port = Number(new URL(this.baseUrl).port);
          child.stdout!.off('data', onData);
          resolve();
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', (c: Buffer) => (this.output += c.toString()));
      child.once('exit', (code) => reject(new Error(`gatehouse serve exited with ${code} before printing its URL:\n${this.output}`)));
    });
  }

  /** SIGTERM, as an operator's Ctrl-C would; resolves when the process has exited. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    await exited;
    this.child = null;
  }

  /** Stops and starts again on the same port with the same token and home. */
  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }
}
