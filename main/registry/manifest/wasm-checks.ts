// Checks on a wasm plugin's module: the file must be a regular file inside the plugin folder,
// reached without a symbolic link, no larger than limits.max_module_mb; its bytes must be a core
// WebAssembly module whose exports include every tool's `export` and whose imports are all
// functions the manifest's permissions grant. The import check is what makes "a module importing
// anything not granted is refused at enable time, with the import's name" true: enabling reloads
// the manifest, and an invalid plugin cannot be enabled.
import { closeSync, fstatSync, lstatSync, openSync, readSync, constants as fsConstants } from 'node:fs';
import { isAbsolute, join, posix, win32 } from 'node:path';
import type { PendingProblem } from './schema-problems.js';
import { AZ_EXECUTE, judgeImports, moduleAbi, refusal } from './wasm-abi.js';
import { readModuleInfo, WasmFormatError, type ModuleInfo } from './wasm-module-info.js';

const MIB = 2 ** 20;
const DEFAULT_MAX_MODULE_MB = 50;

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** Reads a plugin's module by its manifest path with the checks above; null and problems when refused. */
export function readPluginModule(dir: string, file: string, maxBytes: number, segments: (string | number)[] = ['wasm']): { bytes: Uint8Array | null; problems: PendingProblem[] } {
  const field = '`wasm`';
  const q = JSON.stringify(file);
  const fail = (code: string, message: string) => ({ bytes: null, problems: [{ segments, severity: 'error' as const, code, message }] });
  if (posix.isAbsolute(file) || win32.isAbsolute(file) || isAbsolute(file)) {
    return fail('wasm.absolute', `${field} = ${q} is an absolute path, but the module must be a file inside the plugin folder; copy it into the folder and write its path relative to the folder, e.g. "plugin.wasm".`);
  }
  if (file.split(/[\\/]/).includes('..')) return fail('wasm.parent', `${field} = ${q} contains "..", but the module must stay inside the plugin folder; move it into the folder.`);
  // Every component of the path is checked: a linked folder could lead out of the plugin folder.
  const parts = file.split(/[\\/]/).filter((p) => p !== '' && p !== '.');
  let at = dir;
  for (const part of parts) {
    at = join(at, part);
    let st;
    try {
      st = lstatSync(at);
    } catch {
      return fail('wasm.missing', `${field} = ${q} does not exist in the plugin folder; build the module (see the plugin author's guide) or fix the path.`);
    }
    if (st.isSymbolicLink()) return fail('wasm.symlink', `${field} = ${q} is reached through a symbolic link (${at}); Gatehouse runs only module files that are really inside the plugin folder, so replace the link with the file.`);
  }
  let fd: number;
  try {
    // O_NOFOLLOW: a link planted between the check above and this open is refused too.
    fd = openSync(join(dir, file), fsConstants.O_RDONLY | (fsConstants.O_NOFOLLOW ?? 0));
  } catch (err) {
    return fail('wasm.missing', `${field} = ${q} cannot be opened (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); check that it is a file Gatehouse may read.`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return fail('wasm.not-file', `${field} = ${q} is ${st.isDirectory() ? 'a folder' : 'not a regular file'}; point it at the .wasm file.`);
    if (st.size > maxBytes) {
      return fail('wasm.too-large', `${field} = ${q} is ${(st.size / MIB).toFixed(1)} MiB, more than limits.max_module_mb (${maxBytes / MIB} MiB); build a smaller module (strip debug info) or raise limits.max_module_mb.`);
    }
    const bytes = new Uint8Array(st.size);
    let off = 0;
    while (off < bytes.length) {
      const n = readSync(fd, bytes, off, bytes.length - off, off);
      if (n === 0) break;
      off += n;
    }
    return { bytes: bytes.subarray(0, off), problems: [] };
  } finally {
    closeSync(fd);
  }
}

export function checkWasmPlugin(m: Record<string, unknown>, dir: string): PendingProblem[] {
  const file = m['wasm'];
  if (typeof file !== 'string' || file === '') return [];
  const limits = (m['limits'] && typeof m['limits'] === 'object' ? m['limits'] : {}) as Record<string, unknown>;
  const maxMb = typeof limits['max_module_mb'] === 'number' ? limits['max_module_mb'] : DEFAULT_MAX_MODULE_MB;
  const read = readPluginModule(dir, file, maxMb * MIB);
  if (!read.bytes) return read.problems;
  let info: ModuleInfo;
  try {
    info = readModuleInfo(read.bytes);
  } catch (err) {
    if (!(err instanceof WasmFormatError)) throw err;
    return [{ segments: ['wasm'], severity: 'error', code: 'wasm.invalid', message: `\`wasm\` = ${JSON.stringify(file)} is not a module Gatehouse can run: ${err.message}.` }];
  }
  const out: PendingProblem[] = [];
  const perms = (m['permissions'] && typeof m['permissions'] === 'object' ? m['permissions'] : {}) as Record<string, unknown>;
  const verdicts = judgeImports(info.imports, { read: strings(perms['read']), write: strings(perms['write']), hosts: strings(perms['hosts']), log: perms['log'] === true });
  for (const v of verdicts) {
    if (!v.granted) out.push({ segments: ['wasm'], severity: 'error', code: 'wasm.import-not-granted', message: `\`wasm\` = ${JSON.stringify(file)}: ${refusal(v)}.` });
  }
  const functions = new Set(info.exports.filter((e) => e.kind === 'func').map((e) => e.name));
  const exportsList = [...functions].slice(0, 20).join(', ') || 'none';
  // A WASI command is one program: every tool runs its _start (the tool's name is argv[1]).
  const abi = moduleAbi(info.imports, info.exports);
  const command = abi.command;
  // An AgentZero module is one tool entry point too: every tool runs az_tool_execute.
  const entry = command ? '_start' : abi.agentzero ? AZ_EXECUTE : null;
  const tools = m['tools'];
  const wanted: { export: string; segments: (string | number)[] }[] = [];
  if (tools && typeof tools === 'object' && !Array.isArray(tools)) {
    for (const [name, spec] of Object.entries(tools as Record<string, unknown>)) {
      const e = spec && typeof spec === 'object' ? (spec as Record<string, unknown>)['export'] : undefined;
      wanted.push({ export: typeof e === 'string' ? e : (entry ?? name), segments: typeof e === 'string' ? ['tools', name, 'export'] : ['tools', name] });
    }
  } else if (typeof m['name'] === 'string') {
    wanted.push({ export: entry ?? m['name'], segments: ['name'] });
  }
  for (const w of wanted) {
    if (!functions.has(w.export)) {
      out.push({ segments: w.segments, severity: 'error', code: 'wasm.unknown-export', message: `The module ${JSON.stringify(file)} exports no function ${JSON.stringify(w.export)} (its functions: ${exportsList}); export it from the module or set the tool's \`export\` to one of them.` });
    }
  }
  if (!info.exports.some((e) => e.kind === 'memory' && e.name === 'memory') && info.memories.length === 0) {
    // Extism kits always define and export their memory; without one the guest cannot hold input.
    out.push({ segments: ['wasm'], severity: 'error', code: 'wasm.no-memory', message: `The module ${JSON.stringify(file)} defines no memory; build it with a memory (Extism's kits and AssemblyScript do by default).` });
  }
  return out;
}
