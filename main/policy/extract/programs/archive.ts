// Archivers, compressors, backup and sync tools.
import { scpHost } from '../hosts.js';
import { has, optVals, parseArgs } from '../shell/options.js';
import { pathOf } from '../shell/path-args.js';
import type { Ctx, Env, EW, Handler } from '../shell/types.js';
import { unknownProgram } from '../shell/unknown-program.js';
import { generic, READ } from './generic.js';

const TAR_EXEC = ['--to-command', '-I', '--use-compress-program', '-F', '--info-script', '--new-volume-script', '--rsh-command', '--rmt-command'];

function tar(args: EW[], env: Env, c: Ctx): void {
  const col = c.col;
  // Old-style `tar czf x.tgz dir`: the first word is a bundle of letters without a dash.
  const first = args[0];
  const a2 = first && /^[A-Za-z]+$/.test(first.t) ? [{ ...first, t: '-' + first.t }, ...args.slice(1)] : args;
  const p = parseArgs(a2, 'fCbTXIHKFLg', ['--file', '--directory', '--exclude', '--files-from', '--exclude-from', '--transform', '--use-compress-program', '--to-command', '--info-script', '--new-volume-script', '--rsh-command', '--rmt-command', '--checkpoint-action', '--listed-incremental', '--owner', '--group', '--mode', '--format']);
  const create = has(p, '-c', '-r', '-u', '--create', '--append', '--update');
  const extract = has(p, '-x', '--extract', '--get');
  // Archives are trees: what goes in is read whole, and extracting writes anywhere under the target.
  const tree = !has(p, '--no-recursion');
  col.op('read');
  for (const o of p.opts) {
    if (TAR_EXEC.includes(o.name) || (o.name === '--checkpoint-action' && /^(exec|ttyout)=|exec=/.test(o.value?.t ?? ''))) {
      col.op('execute');
      col.evasive(`tar ${o.name} runs a program`);
    }
  }
  for (const f of optVals(p, '-f', '--file')) {
    if (f.known && f.t !== '-' && scpHost(f.t, false) && !f.t.startsWith('/')) {
      // `tar -f host:file` talks to a remote tape server over rsh/ssh.
      col.op('network');
      col.op('execute');
      col.host(scpHost(f.t, false));
    } else if (f.t !== '-') pathOf(f, env, c, create ? 'write' : 'read');
  }
  for (const f of optVals(p, '-T', '--files-from')) {
    pathOf(f, env, c, 'read');
    if (create) col.evasive('tar takes the names to archive from a file');
  }
  const dirs = optVals(p, '-C', '--directory');
  for (const d of dirs) pathOf(d, env, c, extract ? 'write' : 'read', tree && (extract || create));
  if (extract) {
    col.op('write');
    if (!dirs.length) col.recursivePath('.', env.cwd);
  }
  // Names after `-C DIR` are relative to DIR.
  const lastDir = dirs[dirs.length - 1];
  const tenv = lastDir?.known ? { ...env, cwd: col.shellPath(lastDir.t, lastDir.tilde, env.cwd) ?? env.cwd } : env;
  for (const x of p.pos) pathOf(x, tenv, c, extract ? 'write' : 'read', tree && create);
}

/** zip ARCHIVE FILE…: `-r` walks folders, `-TT`/`--unzip-command` runs a program, `-@` reads names. */
function zip(args: EW[], env: Env, c: Ctx): void {
  const col = c.col;
  col.op('read');
  col.op('write');
  const files: EW[] = [];
  let tree = false;
  let patterns = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as EW;
    const t = a.t;
    if (a.known && t.startsWith('-') && t.length > 1) {
      patterns = false;
      if (t === '-TT' || t === '--unzip-command' || t.startsWith('--unzip-command=')) {
        col.op('execute');
        col.evasive('zip -TT runs a program of the caller\'s choosing');
        if (!t.includes('=')) i++;
      } else if (['-b', '-n', '-P', '-t', '-tt', '-O', '-Z', '-s', '-sp', '-lf', '--temp-path', '--suffixes', '--password', '--output-file', '--logfile-path', '--compression-method', '--split-size'].includes(t)) {
        const v = args[++i];
        if (v && (t === '-O' || t === '--output-file' || t === '-lf' || t === '--logfile-path')) pathOf(v, env, c, 'write');
      } else if (t === '-x' || t === '-i' || t === '--exclude' || t === '--include') patterns = true;
      else if (t === '-@' || t === '--names-stdin') col.evasive('zip takes the names to archive from its input');
      else if (t === '-r' || t === '-R' || t === '--recurse-paths' || t === '--recurse-patterns' || (!t.startsWith('--') && /[rR]/.test(t))) tree = true;
      continue;
    }
    if (!patterns) files.push(a);
  }
  files.forEach((f, i) => pathOf(f, env, c, i === 0 ? 'write' : 'read', i > 0 && tree));
}

/** unzip ARCHIVE [-d DIR]: writes anywhere under DIR (the working folder by default). */
function unzip(args: EW[], env: Env, c: Ctx): void {
  c.col.op('read');
  const p = parseArgs(args, 'dxP', ['--password']);
  const arch = p.pos[0];
  if (arch) pathOf(arch, env, c, 'read');
  if (has(p, '-l', '-t', '-v', '-p', '-Z')) return;
  c.col.op('write');
  const dirs = optVals(p, '-d');
  for (const d of dirs) pathOf(d, env, c, 'write', true);
  if (!dirs.length) c.col.recursivePath('.', env.cwd);
}

/** cpio: `-o` archives the names it reads from its input; `-i` extracts under the working folder. */
function cpio(args: EW[], env: Env, c: Ctx): void {
  c.col.op('read');
  const flags = args.filter((a) => a.t.startsWith('-')).map((a) => a.t).join(' ');
  if (/(^|\s)(-[a-zA-Z]*o|--create)/.test(flags)) c.col.evasive('cpio takes the names to archive from its input');
  if (/(^|\s)(-[a-zA-Z]*i|--extract)/.test(flags)) {
    c.col.op('write');
    c.col.recursivePath('.', env.cwd);
  }
  if (/(^|\s)(-[a-zA-Z]*p|--pass-through)/.test(flags)) c.col.evasive('cpio takes the names to copy from its input');
  unknownProgram(args, env, c, true);
}

/** gzip and kin: read each file, write the compressed one, remove the original unless kept. */
function compressor(args: EW[], env: Env, c: Ctx): void {
  const p = parseArgs(args, 'bSFT', ['--suffix', '--threads', '--format', '--memlimit', '--block-size']);
  const keep = has(p, '-k', '--keep', '-c', '--stdout', '-t', '--test', '-l', '--list');
  c.col.op('read');
  if (!has(p, '-c', '--stdout', '-t', '--test', '-l', '--list')) c.col.op('write');
  const tree = has(p, '-r', '--recursive');
  for (const a of p.pos) {
    pathOf(a, env, c, 'read', tree);
    if (!keep) pathOf(a, env, c, 'delete', tree);
  }
}

/** Archivers, backup and sync tools: like an unknown program, and each folder is taken whole. */
function archiver(args: EW[], env: Env, c: Ctx): void {
  c.col.op('read');
  unknownProgram(args, env, c, true);
}

/** Archivers, compressors, backup and sync tools: folders go in whole, and extracting writes a whole tree. */
export const ARCHIVE_PROGRAMS: Record<string, Handler> = {
  zcat: generic(READ), bzcat: generic(READ), xzcat: generic(READ), zless: generic(READ), zmore: generic(READ),
  tar, cpio, zip, unzip,
  gzip: compressor, gunzip: compressor, bzip2: compressor, bunzip2: compressor, xz: compressor, unxz: compressor,
  zstd: compressor, unzstd: compressor, lz4: compressor, brotli: compressor, lzma: compressor, pigz: compressor,
  '7z': archiver, '7za': archiver, '7zz': archiver, rar: archiver, pax: archiver, rclone: archiver, restic: archiver,
  borg: archiver, duplicity: archiver, ncdu: archiver, ugrep: archiver, rsnapshot: archiver, bsdtar: archiver, star: archiver,
};
