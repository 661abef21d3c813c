// Programs that read, list, copy, move, change or remove the files they name.
import { normalisePath } from '../paths.js';
import { commandName, INTERPRETERS, SHELLS } from '../shell/command-name.js';
import { has, optVals, parseArgs } from '../shell/options.js';
import { pathOf, recordLinks } from '../shell/path-args.js';
import { run } from '../shell/script.js';
import { type Ctx, type Env, type EW, type Feed, type Handler, literalEW } from '../shell/types.js';
import { generic, READ } from './generic.js';
import { statSync } from 'node:fs';

// GNU patch's options that take a value.
const PATCH_LONG = ['--prefix', '--ifdef', '--directory', '--fuzz', '--get', '--input', '--output', '--strip', '--reject-file', '--version-control', '--basename-prefix', '--suffix', '--quoting-style', '--reject-format', '--read-only'];

/**
 * `patch [-d DIR] [-o OUT] [-r REJ] [-B PREFIX] [FILE [PATCHFILE]]`: FILE is written (or OUT, which
 * the generic reading missed: `patch -o ~/.bashrc x fix.diff` was allowed), the patch file read,
 * rejects and prefixed backups written where they are named, all in DIR. With no FILE the files
 * the diff names are written, under DIR (patch refuses names that climb out or are absolute).
 */
function patch(args: EW[], env: Env, c: Ctx, feed: Feed): void {
  c.col.op('write');
  const p = parseArgs(args, 'BDdFgiopVYrz', PATCH_LONG);
  let cur = env;
  const dirs = optVals(p, '-d', '--directory');
  for (const d of dirs) {
    if (d.known) cur = { ...cur, cwd: c.col.shellPath(d.t, d.tilde, cur.cwd) ?? cur.cwd };
    else c.col.evasive('patch -d to a folder the judge cannot evaluate');
  }
  const named = (v: EW): boolean => !(v.known && v.t === '-');
  for (const v of optVals(p, '-i', '--input')) if (named(v)) pathOf(v, cur, c, 'read');
  for (const v of [...optVals(p, '-o', '--output'), ...optVals(p, '-r', '--reject-file'), ...optVals(p, '-B', '--prefix')]) if (named(v)) pathOf(v, cur, c, 'write');
  const [file, patchFile] = p.pos;
  if (patchFile) pathOf(patchFile, cur, c, 'read');
  if (file) return pathOf(file, cur, c, 'write');
  // The diff names the files. One given inline is read here (`patch -p1 <<'EOF'` with
  // `+++ b/.git/hooks/pre-commit`); with -d they are somewhere under that folder. A diff read from
  // a file is not opened (it may change before patch runs): patch itself refuses absolute names
  // and names that climb out of its folder.
  const here = feed.redirects.find((r) => (r.op === '<<' || r.op === '<<-' || r.op === '<<<') && r.body !== undefined);
  if (here?.bodyLiteral && here.body !== undefined && !optVals(p, '-i', '--input').length) {
    const strip = optVals(p, '-p', '--strip')[0];
    const n = strip?.known && /^\d+$/.test(strip.t) ? Number(strip.t) : undefined;
    if (strip && n === undefined) c.col.evasive('patch -p with a count the judge cannot read');
    for (const name of diffTargets(here.body, n)) pathOf(literalEW(name), cur, c, 'write');
  } else if (dirs.length) pathOf(literalEW('.'), cur, c, 'write', true);
}

/**
 * The files a unified or context diff changes (`--- a/x`, `+++ b/x`, `*** x`), with `strip`
 * leading folders taken off as patch does; without -p patch keeps only the base name.
 */
export function diffTargets(body: string, strip?: number): string[] {
  const out = new Set<string>();
  for (const m of body.matchAll(/^(?:\+\+\+|---|\*\*\*) ([^\t\n]+)/gm)) {
    let name = (m[1] as string).trim();
    if (name.startsWith('"') && name.endsWith('"')) name = name.slice(1, -1);
    if (!name || name === '/dev/null' || /^\d+(,\d+)? (\*\*\*\*|----)$/.test(name)) continue;
    const parts = name.split('/').filter((x, i) => x !== '' || i === 0);
    name = strip === undefined ? (parts[parts.length - 1] as string) : parts.slice(strip).join('/');
    if (name) out.add(name);
  }
  return [...out];
}

function find(args: EW[], env: Env, c: Ctx, feed: Feed): void {
  c.col.op('read');
  let i = 0;
  const starts: EW[] = [];
  for (; i < args.length; i++) {
    const a = args[i] as EW;
    if (a.t === '-H' || a.t === '-L' || a.t === '-P') continue;
    if (a.t.startsWith('-') || a.t === '(' || a.t === '!' || a.t === ',') break;
    starts.push(a);
  }
  if (!starts.length) starts.push({ t: '.', known: true, tilde: false, subst: false, indirect: false, vars: false });
  // find walks its start folders whole; whatever -exec, -delete or -fprint does, it does to files
  // anywhere under them.
  for (const s of starts) pathOf(s, env, c, 'read', true);
  for (; i < args.length; i++) {
    const t = (args[i] as EW).t;
    if (t === '-delete') c.col.op('delete');
    else if (t === '-fprint' || t === '-fprintf' || t === '-fls' || t === '-fprint0') {
      const f = args[i + 1];
      if (f) pathOf(f, env, c, 'write');
    } else if (t === '-exec' || t === '-execdir' || t === '-ok' || t === '-okdir') {
      const sub: EW[] = [];
      for (i++; i < args.length; i++) {
        const a = args[i] as EW;
        if (a.t === ';' || a.t === '+') break;
        // `{}` stands for each file found: judge the command as run on the start paths.
        if (a.t === '{}') sub.push(...starts);
        else sub.push(a);
      }
      const n0 = commandName(sub[0]?.t ?? '');
      if ((SHELLS.has(n0) || INTERPRETERS.has(n0)) && sub.some((a) => /^-[A-Za-z]*[ce]$/.test(a.t))) c.col.evasive(`find ${t} runs inline ${SHELLS.has(n0) ? 'shell' : n0} code for every file it finds`);
      run(sub, env, c, { upstream: null, redirects: feed.redirects.filter(() => false) });
    }
  }
}

function dd(args: EW[], env: Env, c: Ctx): void {
  for (const a of args) {
    if (a.t.startsWith('if=')) pathOf({ ...a, t: a.t.slice(3), tilde: a.t[3] === '~' }, env, c, 'read');
    else if (a.t.startsWith('of=')) pathOf({ ...a, t: a.t.slice(3), tilde: a.t[3] === '~' }, env, c, 'write');
  }
}

function tee(args: EW[], env: Env, c: Ctx): void {
  c.col.op('write');
  for (const a of parseArgs(args).pos) pathOf(a, env, c, 'write');
}

function copyMove(kind: 'copy' | 'move', values = ''): Handler {
  return (args, env, c) => {
    const col = c.col;
    col.op(kind);
    col.op('write');
    col.op(kind === 'copy' ? 'read' : 'delete');
    const p = parseArgs(args, 'tS' + values, ['--target-directory', '--suffix', '--mode', '--owner', '--group', '--context']);
    // `cp -r` (and mv, which moves a folder whole) reaches every file under its sources and target.
    const tree = kind === 'move' || has(p, '-r', '-R', '-a', '--recursive', '--archive');
    for (const a of p.pos) pathOf(a, env, c, undefined, tree);
    const dirs = optVals(p, '-t', '--target-directory');
    for (const t of dirs) pathOf(t, env, c, undefined, tree);
    const target = dirs[0] ?? (p.pos.length > 1 ? p.pos[p.pos.length - 1] : undefined);
    // `-t DIR` names a folder, whether it is there yet or not.
    intoFolder(dirs.length ? p.pos : p.pos.slice(0, -1), target, env, c, dirs.length > 0);
  };
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}

/**
 * `cp .bashrc ~` writes `~/.bashrc`: when the target is a folder (written as one — `~`, `dir/`,
 * `.` — or one on disk), each source's name under it is a path written too.
 */
export function intoFolder(sources: EW[], target: EW | undefined, env: Env, c: Ctx, isFolder = false): void {
  if (!target?.known || !sources.length) return;
  const dir = target.t;
  const folder =
    isFolder || dir.endsWith('/') || dir === '~' || dir === '.' || dir === '..' || /^~[A-Za-z0-9_.-]*$/.test(dir) ||
    (c.col.ctx.resolveSymlinks && isDirectory(target.tilde ? normalisePath(dir, env.cwd, c.home) : normalisePath(dir.startsWith('~') ? './' + dir : dir, env.cwd, c.home)));
  if (!folder) return;
  for (const s of sources.slice(0, 256)) {
    if (!s.known) continue;
    const name = s.t.replace(/\/+$/, '').split('/').pop();
    if (!name || name === '.' || name === '..' || name === '~') continue;
    pathOf({ ...target, t: (dir.endsWith('/') ? dir : dir + '/') + name }, env, c, 'write');
  }
}

function chmodLike(args: EW[], env: Env, c: Ctx): void {
  c.col.op('write');
  const p = parseArgs(args.filter((a) => !/^[-+=][rwxXstugo]+$/.test(a.t) || a.t.startsWith('--')), '', ['--reference']);
  const ref = has(p, '--reference');
  const tree = has(p, '-R', '--recursive');
  p.pos.forEach((a, i) => { if (i > 0 || ref) pathOf(a, env, c, 'write', tree); });
}

/** fd PATTERN [DIR…]: walks DIR (the working folder by default); `-x`/`-X` run a command on each match. */
function fd(args: EW[], env: Env, c: Ctx, feed: Feed): void {
  c.col.op('read');
  const x = args.findIndex((a) => a.t === '-x' || a.t === '--exec' || a.t === '-X' || a.t === '--exec-batch');
  // The command after -x runs to a `;` (or the end); fd's own arguments go on after it.
  let end = x < 0 ? -1 : args.findIndex((a, i) => i > x && a.t === ';');
  if (x >= 0 && end < 0) end = args.length;
  const own = x < 0 ? args : [...args.slice(0, x), ...args.slice(end + 1)];
  const p = parseArgs(own, 'edtEcjSdo', ['--extension', '--type', '--exclude', '--max-depth', '--min-depth', '--size', '--changed-within', '--changed-before', '--owner', '--threads', '--color', '--search-path', '--base-directory', '--ignore-file', '--format', '--max-results', '--exact-depth', '--and']);
  const dirs = [...p.pos.slice(1), ...optVals(p, '--search-path', '--base-directory')];
  for (const d of dirs) pathOf(d, env, c, 'read', true);
  if (!dirs.length) c.col.recursivePath('.', env.cwd);
  if (x >= 0) {
    const sub = args.slice(x + 1, end);
    if (sub.length) run(sub.map((a) => (a.t === '{}' ? dirs[0] ?? literalEW('.') : a)), env, c, feed);
  }
}

/**
 * less FILE…: reads them; `-o FILE`/`-O FILE`/`--log-file=FILE` copy its input to FILE, and a
 * `+CMD` whose commands reach a shell (`!`, `|`) or save a file (`s`) is unsure.
 */
function less(args: EW[], env: Env, c: Ctx): void {
  c.col.op('read');
  const own: EW[] = [];
  for (const a of args) {
    if (a.known && a.t.startsWith('+') && a.t.length > 1) {
      if (/[!|]|^\+\+?s/.test(a.t)) {
        c.col.op('execute');
        c.col.evasive('less runs the commands given with +');
      }
    } else own.push(a);
  }
  const p = parseArgs(own, 'bhjkoOpPtTxyz#', ['--log-file', '--LOG-FILE', '--lesskey-file', '--tag', '--pattern', '--prompt', '--tag-file', '--shift', '--tabs', '--window', '--max-back-scroll', '--max-forw-scroll', '--buffers', '--jump-target']);
  for (const a of p.pos) pathOf(a, env, c, 'read');
  for (const f of optVals(p, '-o', '-O', '--log-file', '--LOG-FILE')) pathOf(f, env, c, 'write');
  for (const f of optVals(p, '-k', '--lesskey-file', '-T', '--tag-file')) pathOf(f, env, c, 'read');
}

/** split [INPUT [PREFIX]]: reads INPUT, writes files named PREFIX…. */
function splitCmd(args: EW[], env: Env, c: Ctx): void {
  c.col.op('read');
  const p = parseArgs(args, 'abClnt', ['--bytes', '--line-bytes', '--lines', '--number', '--suffix-length', '--additional-suffix', '--separator', '--filter']);
  if (has(p, '--filter')) {
    c.col.op('execute');
    c.col.evasive('split --filter runs a command');
  }
  p.pos.forEach((a, i) => pathOf(a, env, c, i === 1 ? 'write' : 'read'));
  if (p.pos.length < 2) {
    c.col.op('write');
    c.col.shellPath('x', false, env.cwd);
  }
}

/** Programs that read, list, change or remove the files they name. */
export const FILE_PROGRAMS: Record<string, Handler> = {
  cat: generic(READ), tac: generic(READ), less, more: generic(READ), nl: generic(READ),
  head: generic({ ops: ['read'], v: 'nc' }), tail: generic({ ops: ['read'], v: 'ncs' }),
  ls: generic({ ops: ['read'], v: 'IwT', lv: ['--ignore', '--hide', '--width'], rec: ['-R', '--recursive'], cwd: true }), dir: generic({ ops: ['read'], rec: ['-R', '--recursive'], cwd: true }),
  tree: generic({ ops: ['read'], v: 'LIPo', rec: true, pathOpts: { '-o': 'write' } }),
  stat: generic({ ops: ['read'], v: 'c', lv: ['--format', '--printf'] }), file: generic({ ops: ['read'], v: 'mfFeP', pathOpts: { '-f': 'read', '-m': 'read' } }), wc: generic(READ),
  diff: generic({ ops: ['read'], v: 'xXSIFLCUD', lv: ['--exclude', '--exclude-from', '--label', '--starting-file', '--ignore-matching-lines', '--from-file', '--to-file'], rec: ['-r', '--recursive'], pathOpts: { '-X': 'read', '--exclude-from': 'read', '--from-file': 'read', '--to-file': 'read' } }),
  cmp: generic(READ), comm: generic(READ),
  lsattr: generic({ ops: ['read'], rec: ['-R'] }), getfacl: generic({ ops: ['read'], rec: ['-R', '--recursive'] }), ldd: generic(READ), nm: generic(READ), objdump: generic(READ), readelf: generic(READ), size: generic(READ),
  csplit: generic({ ops: ['read'], v: 'fbn', skip: 0, pathOpts: { '-f': 'write' } }), split: splitCmd,
  md5sum: generic(READ), sha1sum: generic(READ), sha256sum: generic(READ), sha512sum: generic(READ), cksum: generic(READ), b2sum: generic(READ),
  readlink: generic(READ), realpath: generic(READ),
  du: generic({ ops: ['read'], v: 'dBtX', lv: ['--max-depth', '--exclude', '--exclude-from', '--threshold', '--time-style', '--files0-from'], rec: ['-a', '--all'], pathOpts: { '-X': 'read', '--exclude-from': 'read', '--files0-from': 'read' } }),
  find, dd, tee, fd, fdfind: fd,
  rm: generic({ ops: ['delete'], rec: ['-r', '-R', '--recursive'] }), rmdir: generic({ ops: ['delete'] }), unlink: generic({ ops: ['delete'] }),
  shred: (args, env, c) => { c.col.op('write'); generic({ ops: ['delete'], v: 'ns' })(args, env, c, { upstream: null, redirects: [] }, 'shred'); },
  cp: copyMove('copy'), mv: copyMove('move'), install: copyMove('copy', 'mog'),
  touch: generic({ ops: ['write'], v: 'dtr', pathOpts: { '-r': 'read' } }), mkdir: generic({ ops: ['write'], v: 'm' }),
  truncate: generic({ ops: ['write'], v: 'sr' }), mkfifo: generic({ ops: ['write'], v: 'm' }),
  ln: (args, env, c, feed, name) => {
    generic({ ops: ['write'], v: 'St', lv: ['--target-directory', '--suffix'] })(args, env, c, feed, name);
    recordLinks(args, env, c);
    const p = parseArgs(args, 'St', ['--target-directory', '--suffix']);
    const dirs = optVals(p, '-t', '--target-directory');
    // `ln -t DIR TARGET…` makes its links in DIR, a folder whether it is there yet or not.
    for (const d of dirs) pathOf(d, env, c, 'write');
    intoFolder(dirs.length ? p.pos : p.pos.slice(0, -1), dirs[0] ?? (p.pos.length > 1 ? p.pos[p.pos.length - 1] : undefined), env, c, dirs.length > 0);
  },
  patch,
  chmod: chmodLike, chown: chmodLike, chgrp: chmodLike, chattr: chmodLike, setfacl: chmodLike,
};
