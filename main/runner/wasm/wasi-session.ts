// One call of a WASI preview 1 module (what `cargo build --target wasm32-wasip1` makes), inside
// the worker: Node's own WASI (node:wasi) with the call's JSON in a file that is the guest's
// stdin, its stdout and stderr in files of the same private temporary folder, and only the
// folders the manifest grants as preopens, each at its own absolute path (so the guest opens
// "/home/me/notes/x.md" as it would natively; wasi-libc finds the preopen by longest prefix).
//
// node:wasi gives every preopen full rights, so read-only grants are enforced here: the functions
// that create, change or remove files are wrapped, and refused with ERRNO_NOTCAPABLE unless the
// descriptor they act through descends from a write-granted preopen. If this bookkeeping breaks,
// a plugin granted only `read` could write into that folder. Sockets: WASI preview 1 can only use
// sockets a runtime preopens, and Gatehouse preopens none; the sock_* functions link (a module
// whose dependencies mention them still loads) and always answer ERRNO_NOTCAPABLE.
import { closeSync, fstatSync, mkdtempSync, openSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WASI } from 'node:wasi';
import { KernelLimit } from './extism-kernel.js';

export const WASI_MODULE = 'wasi_snapshot_preview1';

export interface WasiPreopen {
  /** The folder's absolute host path, which is also its path inside the guest. */
  path: string;
  writable: boolean;
}

export interface WasiSetup {
  /** A WASI command (moduleAbi): _start runs, stdin → stdout; else Extism exports with WASI beside them. */
  command: boolean;
  /** argv: the plugin's and the tool's names. */
  args: string[];
  preopens: WasiPreopen[];
}

const ERRNO_SUCCESS = 0;
const ERRNO_BADF = 8;
const ERRNO_NOTCAPABLE = 76;
// Rights and flags (wasi_snapshot_preview1 witx) that mean "this open may change the file".
const RIGHT_FD_WRITE = 1n << 6n;
const RIGHT_FD_ALLOCATE = 1n << 8n;
const RIGHT_FD_FILESTAT_SET_SIZE = 1n << 22n;
const WRITE_RIGHTS = RIGHT_FD_WRITE | RIGHT_FD_ALLOCATE | RIGHT_FD_FILESTAT_SET_SIZE;
const OFLAG_CREAT = 1;
const OFLAG_TRUNC = 8;
const FIRST_PREOPEN_FD = 3;

type Fn = (...args: never[]) => unknown;

export class WasiSession {
  private readonly dir: string;
  private readonly fds: { stdin: number; stdout: number; stderr: number };
  readonly wasi: WASI;
  /** Descriptor → may it change files (it descends from a write-granted preopen). Unknown: no. */
  private readonly writable = new Map<number, boolean>();
  memory: WebAssembly.Memory | null = null;

  constructor(
    setup: WasiSetup,
    input: Uint8Array,
    private readonly maxOutputBytes: number,
  ) {
    // Private to this call: the worker's temporary folder (the sandbox's own /tmp when isolated).
    this.dir = mkdtempSync(join(tmpdir(), 'gatehouse-wasi-'));
    writeFileSync(join(this.dir, 'stdin'), input, { mode: 0o600 });
    this.fds = {
      stdin: openSync(join(this.dir, 'stdin'), 'r'),
      stdout: openSync(join(this.dir, 'stdout'), 'w+', 0o600),
      stderr: openSync(join(this.dir, 'stderr'), 'w+', 0o600),
    };
    const preopens: Record<string, string> = {};
    setup.preopens.forEach((p, i) => {
      preopens[p.path] = p.path;
      this.writable.set(FIRST_PREOPEN_FD + i, p.writable);
    });
    this.wasi = new WASI({ version: 'preview1', args: setup.args, env: {}, preopens, stdin: this.fds.stdin, stdout: this.fds.stdout, stderr: this.fds.stderr, returnOnExit: true });
  }

  /** The import object's wasi_snapshot_preview1 namespace, with the guards above. */
  imports(): Record<string, Fn> {
    const base = (this.wasi.getImportObject() as Record<string, Record<string, Fn>>)[WASI_MODULE]!;
    const out: Record<string, Fn> = { ...base };
    const can = (fd: number) => this.writable.get(fd) === true;
    const guard = (name: string, fdArgs: number[], extra?: (args: unknown[]) => boolean) => {
      const orig = base[name];
      if (!orig) return;
      out[name] = ((...args: unknown[]) => {
        const mutates = extra ? extra(args) : true;
        if (mutates && !fdArgs.every((i) => can(args[i] as number))) return ERRNO_NOTCAPABLE;
        return (orig as (...a: unknown[]) => unknown)(...args);
      }) as Fn;
    };
    // path_open(fd, dirflags, path, path_len, oflags, rights_base, rights_inheriting, fdflags, opened_fd)
    const open = base['path_open']!;
    out['path_open'] = ((...args: unknown[]) => {
      const [fd, , , , oflags, rights] = args as [number, number, number, number, number, bigint];
      const writes = (oflags & (OFLAG_CREAT | OFLAG_TRUNC)) !== 0 || (BigInt(rights) & WRITE_RIGHTS) !== 0n;
      if (writes && !can(fd)) return ERRNO_NOTCAPABLE;
      const rc = (open as (...a: unknown[]) => number)(...args);
      if (rc === ERRNO_SUCCESS && this.memory) {
        const opened = new DataView(this.memory.buffer).getUint32(args[8] as number, true);
        this.writable.set(opened, can(fd));
      }
      return rc;
    }) as Fn;
    guard('path_create_directory', [0]);
    guard('path_remove_directory', [0]);
    guard('path_unlink_file', [0]);
    guard('path_rename', [0, 3]);
    guard('path_symlink', [2]);
    guard('path_link', [0, 4]);
    guard('path_filestat_set_times', [0]);
    guard('fd_filestat_set_times', [0], (a) => (a[0] as number) > 2);
    guard('fd_filestat_set_size', [0], (a) => (a[0] as number) > 2);
    guard('fd_allocate', [0], (a) => (a[0] as number) > 2);
    const renumber = base['fd_renumber']!;
    out['fd_renumber'] = ((from: number, to: number) => {
      const rc = (renumber as (a: number, b: number) => number)(from, to);
      if (rc === ERRNO_SUCCESS) {
        this.writable.set(to, can(from));
        this.writable.delete(from);
      }
      return rc;
    }) as Fn;
    const close = base['fd_close']!;
    out['fd_close'] = ((fd: number) => {
      // The guest's stdio are the call's own files: closing them would lose its output.
      if (fd <= 2) return ERRNO_BADF;
      const rc = (close as (a: number) => number)(fd);
      if (rc === ERRNO_SUCCESS) this.writable.delete(fd);
      return rc;
    }) as Fn;
    // fd_write: the guest's stdout is the result; past limits.max_output_kb the call ends.
    const write = base['fd_write']!;
    out['fd_write'] = ((...args: unknown[]) => {
      const rc = (write as (...a: unknown[]) => number)(...args);
      if (args[0] === 1 && fstatSync(this.fds.stdout).size > this.maxOutputBytes) {
        throw new KernelLimit('output', `the plugin wrote more than limits.max_output_kb (${this.maxOutputBytes / 1024} KiB) to stdout`);
      }
      return rc;
    }) as Fn;
    for (const name of ['sock_accept', 'sock_recv', 'sock_send', 'sock_shutdown']) out[name] = (() => ERRNO_NOTCAPABLE) as Fn;
    return out;
  }

  /** What the guest wrote to stdout (up to the cap) and its stderr lines. */
  result(): { stdout: Uint8Array; stderr: string } {
    return { stdout: readCapped(this.fds.stdout, this.maxOutputBytes), stderr: Buffer.from(readCapped(this.fds.stderr, 64 * 1024)).toString('utf8') };
  }

  dispose(): void {
    for (const fd of Object.values(this.fds)) closeSync(fd);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function readCapped(fd: number, cap: number): Uint8Array {
  const size = Math.min(fstatSync(fd).size, cap);
  const buf = new Uint8Array(size);
  let off = 0;
  while (off < size) {
    const n = readSync(fd, buf, off, size - off, off);
    if (n === 0) break;
    off += n;
  }
  return buf.subarray(0, off);
}
