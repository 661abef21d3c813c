// One file: decide what it is (by extension, and by its #! line, which is what actually decides
// how an executable runs), then run the Trojan Source check and the rules of its language.

import { scanLua } from './lua-scan.js';
import type { Finding } from '../types.js';
import { Collector } from './collector.js';
import type { RuleId } from './rules.js';
import { scanJs, type JsDialect } from './js-scan.js';
import { scanPython } from './python-scan.js';
import { inlinePrograms, scanShell, type InlineLanguage } from './shell-scan.js';
import { scanTrojanSource } from './trojan-source.js';
import { scanCodeForInjection } from './tool-poisoning.js';

export type FileLanguage = { kind: 'js'; dialect: JsDialect } | { kind: 'python' } | { kind: 'shell' } | { kind: 'lua' };

const BY_EXTENSION: Record<string, FileLanguage> = {
  '.js': { kind: 'js', dialect: 'js' },
  '.mjs': { kind: 'js', dialect: 'js' },
  '.cjs': { kind: 'js', dialect: 'js' },
  '.jsx': { kind: 'js', dialect: 'jsx' },
  '.ts': { kind: 'js', dialect: 'ts' },
  '.tsx': { kind: 'js', dialect: 'tsx' },
  '.mts': { kind: 'js', dialect: 'ts' },
  '.cts': { kind: 'js', dialect: 'ts' },
  '.py': { kind: 'python' },
  '.pyw': { kind: 'python' },
  '.sh': { kind: 'shell' },
  '.bash': { kind: 'shell' },
  '.zsh': { kind: 'shell' },
  '.ksh': { kind: 'shell' },
  '.dash': { kind: 'shell' },
  '.lua': { kind: 'lua' },
};

const SHEBANG = /^(?:\uFEFF)?#!\s*(\S+)([^\r\n]*)/;

function extensionOf(relPath: string): string {
  const base = relPath.slice(relPath.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot).toLowerCase() : '';
}

/** The language named by a `#!` line, looking through `/usr/bin/env [-S] [VAR=x] interpreter`. */
export function shebangLanguage(content: string): FileLanguage | undefined {
  const m = SHEBANG.exec(content.slice(0, 512));
  if (!m) return undefined;
  let interp = (m[1] as string).slice((m[1] as string).lastIndexOf('/') + 1);
  if (interp === 'env') {
    const next = (m[2] ?? '').trim().split(/\s+/).find((w) => w && !w.startsWith('-') && !/^[A-Za-z_]\w*=/.test(w));
    if (!next) return undefined;
    interp = next.slice(next.lastIndexOf('/') + 1);
  }
  if (/^(?:python|pypy)[\d.]*$/.test(interp)) return { kind: 'python' };
  if (/^(?:(?:ba|z|da|k|a|mk)?sh|busybox)$/.test(interp)) return { kind: 'shell' };
  if (/^(?:node|nodejs)$/.test(interp)) return { kind: 'js', dialect: 'js' };
  if (/^(?:deno|bun|tsx|ts-node)$/.test(interp)) return { kind: 'js', dialect: 'ts' };
  if (/^(?:lua[\d.]*|luajit)$/.test(interp)) return { kind: 'lua' };
  return undefined;
}

/**
 * The languages a file is scanned as: its extension's, plus its #! line's when that names a
 * different language (a `run.md` or `tool.py` whose first line is `#!/bin/bash` runs as bash).
 */
export function languagesOf(relPath: string, content: string): FileLanguage[] {
  const byExt = BY_EXTENSION[extensionOf(relPath)];
  const bySheBang = content.startsWith('#!') || content.startsWith('\uFEFF#!') ? shebangLanguage(content) : undefined;
  if (byExt && bySheBang && byExt.kind !== bySheBang.kind) return [byExt, bySheBang];
  const one = byExt ?? bySheBang;
  return one ? [one] : [];
}

/** Languages that run but that the scanner does not read, by extension and by #! interpreter. */
// Lua is not among them: it is read by the adapters' Lua scanner (scanLuaRules).
const UNSCANNED_EXT: Record<string, string> = { '.pl': 'Perl', '.pm': 'Perl', '.rb': 'Ruby', '.php': 'PHP', '.awk': 'awk', '.tcl': 'Tcl', '.exp': 'Tcl' };
const UNSCANNED_INTERP: Array<[RegExp, string]> = [[/^perl[\d.]*$/, 'Perl'], [/^ruby[\d.]*$/, 'Ruby'], [/^php[\d.]*$/, 'PHP'], [/^[gmn]?awk$/, 'awk'], [/^(?:tclsh[\d.]*|wish[\d.]*|expect)$/, 'Tcl']];

/** The name of an interpreter's language the scanner does not read (`perl` is Perl); awk's when none matches (`awk -f`). */
function interpreterLanguageName(interp: string): string {
  return UNSCANNED_INTERP.find(([re]) => re.test(interp))?.[1] ?? 'awk';
}

/** The name of the language a file runs as when the scanner has no rules for it (Perl, Ruby, PHP, awk, Tcl), else undefined. */
export function unscannedLanguage(relPath: string, content: string): string | undefined {
  const byExt = UNSCANNED_EXT[extensionOf(relPath)];
  if (byExt) return byExt;
  const m = SHEBANG.exec(content.slice(0, 512));
  if (!m) return undefined;
  let interp = (m[1] as string).slice((m[1] as string).lastIndexOf('/') + 1);
  if (interp === 'env') interp = ((m[2] ?? '').trim().split(/\s+/).find((w) => w && !w.startsWith('-') && !/^[A-Za-z_]\w*=/.test(w)) ?? '').replace(/^.*\//, '');
  return UNSCANNED_INTERP.find(([re]) => re.test(interp))?.[1];
}

/**
 * What a script runs by name: `. lib.dat`, `source x`, `sh x`, `/usr/bin/python3 x`, `node x`,
 * `perl x`, `python3 - < x`, with the file given plainly or from the script's own folder
 * (`"$(dirname "$0")/x"`, `"$DIR/x"`): the interpreter and the file.
 */
const INTERP = String.raw`(?:[\w./-]*\/)?(\.|source|sh|bash|dash|zsh|ksh|python[\d.]*|node|nodejs|perl|ruby|php|lua[\d.]*|luajit|tclsh[\d.]*|expect|[gmn]?awk\s+-f)`;
const HERE = String.raw`(?:"?\$\(\s*dirname\s+"?\$\{?0\}?"?\s*\)"?\/|"?\$\{0%\/\*\}"?\/|"?\$\{?[A-Za-z_]\w*\}?"?\/)?`;
// A file named in the script, or one of its arguments (`"$1"`, `"$@"`: the manifest's `args` name it).
const FILE = String.raw`["']?((?:\.\/)?[\w.][\w./-]*|\$\{?[1-9@]\}?)["']?`;
// In command position only (the start of a line or after ; & | ( { `, then, do, exec, …): `echo . done` runs nothing.
const RUNS_FILE = new RegExp(String.raw`(?:^|[;&|({\`])[ \t]*(?:(?:then|do|else|exec|time|nohup|command)[ \t]+)*${INTERP}(?:[ \t]+-[abd-zA-Z]+)*(?:[ \t]+-(?=[ \t]))?(?:[ \t]+|[ \t]*<[ \t]*)${HERE}${FILE}`, 'gm');

/**
 * The plugin files a shell script runs by name with an interpreter, each with the language it runs
 * as there: a file with no extension (`data.dat`, `lib.txt`) sourced or run by an interpreter is
 * code of that language, whatever its name says. Paths are taken from the plugin folder (its
 * working directory), `./` dropped; ones that climb out are not plugin files. One of the script's
 * own arguments run so (`. "$1"`, `exec python3 "$@"`) is given as `$1` or `$@`.
 */
export function filesRunBy(content: string): Array<{ path: string; lang: FileLanguage | string }> {
  const out: Array<{ path: string; lang: FileLanguage | string }> = [];
  for (const m of content.matchAll(RUNS_FILE)) {
    const interp = m[1] as string;
    const path = (m[2] as string).replace(/^(?:\.\/)+/, '');
    if (!path || path.startsWith('..') || path.startsWith('/') || path.startsWith('-')) continue;
    const lang: FileLanguage | string = /^(?:\.|source|sh|bash|dash|zsh|ksh)$/.test(interp)
      ? { kind: 'shell' }
      : /^python/.test(interp)
        ? { kind: 'python' }
        : /^node/.test(interp)
          ? { kind: 'js', dialect: 'js' }
          : /^lua/.test(interp)
            ? { kind: 'lua' }
            : interpreterLanguageName(interp);
    out.push({ path, lang });
  }
  return out;
}

/** Findings for one text file. `relPath` is relative to the plugin folder, with `/` separators. */
export function scanFile(relPath: string, content: string): Finding[] {
  const c = new Collector(relPath, content);
  const langs = languagesOf(relPath, content);
  const unread = unscannedLanguage(relPath, content);
  if (unread !== undefined) c.atLine('scan.unscanned-code', 1, 1, `This file runs as ${unread}, which the scanner does not read: review it by hand.`);
  scanTrojanSource(c, langs.some((l) => l.kind === 'js'));
  runRules(c, langs);
  return c.findings();
}

/**
 * Findings for a file another file of the plugin runs as `langs` (filesRunBy), besides what
 * scanFile found for it by its own name and #! line: only the rules of those languages that are
 * not its own, and a note for one the scanner does not read.
 */
export function scanFileAs(relPath: string, content: string, langs: ReadonlyArray<FileLanguage | string>): Finding[] {
  const c = new Collector(relPath, content);
  const own = languagesOf(relPath, content);
  const extra = langs.filter((l): l is FileLanguage => typeof l !== 'string' && !own.some((o) => o.kind === l.kind));
  const unread = unscannedLanguage(relPath, content) === undefined ? langs.find((l): l is string => typeof l === 'string') : undefined;
  if (unread !== undefined) c.atLine('scan.unscanned-code', 1, 1, `This file is run as ${unread}, which the scanner does not read: review it by hand.`);
  runRules(c, [...new Map(extra.map((l) => [l.kind, l])).values()]);
  return c.findings();
}

function runRules(c: Collector, langs: readonly FileLanguage[]): void {
  for (const lang of langs) {
    try {
      if (lang.kind === 'js') {
        scanJs(c, lang.dialect);
        scanCodeForInjection(c, 'js.prompt-injection');
      }
      else if (lang.kind === 'python') scanPython(c);
      else if (lang.kind === 'lua') scanLuaRules(c);
      else {
        scanShell(c);
        scanInline(c);
      }
    } catch (err) {
      // Fail closed: a file the scanner cannot read is not a file it vouches for.
      c.atLine('scan.error', 1, 1, `The ${lang.kind} scanner failed on this file (${(err as Error).message.split('\n')[0]}), so it is treated as failing the scan.`);
    }
  }
}

/**
 * The same rules for Lua as for an adapter's Lua (lua-scan.ts, which the adapter
 * service runs before an adapter loads), so an adapter folder scanned as a plugin folder (`catalog
 * add`, a catalog install) is judged by the rules its Lua is written to. The messages here hold for
 * Lua run by an interpreter too (`lua x.lua`), where these functions do exist.
 */
const LUA_MESSAGES: Record<string, string> = {
  'lua.os-execute': 'os.execute runs a shell command. An adapter has no os table (its runtime removes it); Lua run by `lua` has, and runs the command.',
  'lua.io-popen': 'io.popen starts a program. An adapter has no io table (its runtime removes it); Lua run by `lua` has, and starts the program.',
  'lua.load-string': 'load, loadstring, dofile or loadfile compile or load code at run time, which hides what the code does from review; write the code out (an adapter\'s runtime has none of them).',
  'lua.debug': 'the debug library reaches past the code\'s own state (an adapter\'s runtime has no debug table); remove it.',
};

function scanLuaRules(c: Collector): void {
  for (const f of scanLua(c.file, c.text)) c.atLine(f.rule as RuleId, f.line, f.column, LUA_MESSAGES[f.rule] ?? f.message);
}

/** The rules a program given inline in a script is scanned by (`lua -e`: Lua's), or undefined for a language the scanner does not read. */
function inlineLanguage(lang: InlineLanguage): FileLanguage | undefined {
  return lang === 'js' ? { kind: 'js', dialect: 'js' } : lang === 'python' ? { kind: 'python' } : lang === 'Lua' ? { kind: 'lua' } : undefined;
}

/**
 * The programs a shell script hands an interpreter inline (inlinePrograms): Python, JavaScript and
 * Lua are scanned by their own rules, each finding placed at its line in the script; a language
 * the scanner does not read is a note to review it.
 */
function scanInline(c: Collector): void {
  for (const p of inlinePrograms(c.text)) {
    const at = c.lines.position(p.offset);
    const lang = inlineLanguage(p.lang);
    if (!lang) {
      const what = p.lang === 'awk' ? 'An awk program that runs commands or writes files' : `Inline ${p.lang} (${p.via})`;
      c.atLine('scan.unscanned-code', at.line, at.column, `${what}, which the scanner does not read: review it by hand.`);
      continue;
    }
    const inner = new Collector(c.file, p.code);
    runRules(inner, [lang]);
    for (const f of inner.findings()) {
      // The program's first line starts a character after its opening quote.
      const line = at.line + f.line - 1;
      const column = f.line === 1 ? at.column + f.column : f.column;
      c.atLine(f.rule as RuleId, line, column, `${f.message} (in the program given to ${p.via})`);
    }
  }
}
