// One file: decide what it is (by extension, and by its #! line, which is what actually decides
// how an executable runs), then run the Trojan Source check and the rules of its language.

import type { Finding } from '../types.js';
import { Collector } from './collector.js';
import { scanJs, type JsDialect } from './js-scan.js';
import { scanPython } from './python-scan.js';
import { scanShell } from './shell-scan.js';
import { scanTrojanSource } from './trojan-source.js';
import { scanCodeForInjection } from './tool-poisoning.js';

export type FileLanguage = { kind: 'js'; dialect: JsDialect } | { kind: 'python' } | { kind: 'shell' };

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

/** Findings for one text file. `relPath` is relative to the plugin folder, with `/` separators. */
export function scanFile(relPath: string, content: string): Finding[] {
  const c = new Collector(relPath, content);
  const langs = languagesOf(relPath, content);
  scanTrojanSource(c, langs.some((l) => l.kind === 'js'));
  for (const lang of langs) {
    try {
      if (lang.kind === 'js') {
        scanJs(c, lang.dialect);
        scanCodeForInjection(c, 'js.prompt-injection');
      }
      else if (lang.kind === 'python') scanPython(c);
      else scanShell(c);
    } catch (err) {
      // Fail closed: a file the scanner cannot read is not a file it vouches for.
      c.atLine('scan.error', 1, 1, `The ${lang.kind} scanner failed on this file (${(err as Error).message.split('\n')[0]}), so it is treated as failing the scan.`);
    }
  }
  return c.findings();
}
