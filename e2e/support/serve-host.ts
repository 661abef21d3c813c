// A real `gatehouse serve` process for a spec, with its own temporary GATEHOUSE_HOME.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';

const cli = join(import.meta.dirname, '..', '..', 'bin', 'gatehouse.js');
const LINE = /^Gatehouse console: (http:\/\/[^/]+\/)#token=([A-Za-z0-9_-]+)$/m;

export class ServeHost {
  readonly home: string;
  readonly token: string;
  port = 0;
  baseUrl = '';
  private child: ChildProcess | null = null;
  output = '';

  constructor(opts: { home?: string; token?: string } = {}) {
    this.home = opts.home ?? mkdtempSync(join(tmpdir(), 'gatehouse-e2e-'));
    this.token = opts.token ?? randomBytes(24).toString('base64url');
  }

  /** The URL an operator opens: the token rides in the fragment. */
  get consoleUrl(): string {
    return `${this.baseUrl}#token=${this.token}`;
  }

  /** Starts the host and resolves once it printed its console line. */
  async start(): Promise<void> {
    const child = spawn(process.execPath, [cli, 'serve', '--port', String(this.port), '--home', this.home, '--token', this.token], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, GATEHOUSE_NO_ELECTRON: '1' },
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
