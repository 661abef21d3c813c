// The folder digest every plugin call is verified against (integrity.ts), on real files: what it
// covers (contents, the exec bit, links by target, never followed), what it refuses before reading
// (a file or a folder past its bound, as sparse files that take no disk), and what it skips.
import { execFileSync } from 'node:child_process';
import { chmodSync, closeSync, ftruncateSync, mkdirSync, openSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { digestFolder, MAX_PLUGIN_BYTES, MAX_PLUGIN_FILE_BYTES } from '../../../main/registry/integrity.js';
import { tempDir } from '../../support/temp.js';

function folder(): string {
  const dir = join(tempDir('gatehouse-digest-'), 'plugin');
  mkdirSync(join(dir, 'lib'), { recursive: true });
  writeFileSync(join(dir, 'gatehouse.toml'), 'name = "p"\n');
  writeFileSync(join(dir, 'run.sh'), '#!/bin/sh\necho hi\n');
  chmodSync(join(dir, 'run.sh'), 0o755);
  writeFileSync(join(dir, 'lib', 'util.sh'), 'x=1\n');
  symlinkSync('../run.sh', join(dir, 'lib', 'entry'));
  return dir;
}

/** A file of `bytes` that uses no disk. */
function sparse(path: string, bytes: number): void {
  const fd = openSync(path, 'w');
  try {
    ftruncateSync(fd, bytes);
  } finally {
    closeSync(fd);
  }
}

describe('digestFolder', () => {
  it('lists every file with its kind, the link by its target, in path order', () => {
    const d = digestFolder(folder());
    expect(d.files.map((f) => [f.path, f.kind, f.size])).toEqual([
      ['gatehouse.toml', 'f', 11],
      ['lib/entry', 'l', '../run.sh'.length],
      ['lib/util.sh', 'f', 4],
      ['run.sh', 'x', 18],
    ]);
    expect(d.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("changes with a file's contents, its exec bit and a link's target, and only with them", () => {
    const dir = folder();
    const first = digestFolder(dir).hash;
    expect(digestFolder(dir).hash).toBe(first);
    chmodSync(join(dir, 'run.sh'), 0o644);
    const noExec = digestFolder(dir).hash;
    expect(noExec).not.toBe(first);
    chmodSync(join(dir, 'run.sh'), 0o755);
    expect(digestFolder(dir).hash).toBe(first);
    writeFileSync(join(dir, 'lib', 'util.sh'), 'x=2\n');
    expect(digestFolder(dir).hash).not.toBe(first);
    writeFileSync(join(dir, 'lib', 'util.sh'), 'x=1\n');
    execFileSync('ln', ['-sfn', '../gatehouse.toml', join(dir, 'lib', 'entry')]);
    expect(digestFolder(dir).hash).not.toBe(first);
  });

  it('skips a FIFO without blocking on it (nothing to pin, never run)', () => {
    const dir = folder();
    const before = digestFolder(dir).hash;
    execFileSync('mkfifo', [join(dir, 'pipe')]);
    expect(digestFolder(dir).hash).toBe(before);
  });

  it('refuses a file past its bound without reading it', () => {
    const dir = folder();
    sparse(join(dir, 'huge.bin'), MAX_PLUGIN_FILE_BYTES + 1);
    expect(() => digestFolder(dir)).toThrow(/huge\.bin is 128 MiB; a plugin's file may be at most 128 MiB/);
  });

  it('refuses a folder past its total', () => {
    const dir = folder();
    const third = Math.floor(MAX_PLUGIN_BYTES / 3) + 1;
    for (const name of ['a.bin', 'b.bin', 'c.bin']) sparse(join(dir, name), third);
    expect(() => digestFolder(dir)).toThrow(new RegExp(`${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} holds more than 256 MiB`));
  });
});
