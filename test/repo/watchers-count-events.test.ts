// The judge trusts folder watches only because every watcher on the host's loop counts its events
// (main/core/watch-events.ts): a flood that overflows the loop's one inotify queue shows as a burst,
// and every proof made before it is dropped. A module that watches files without counting would
// let an agent flood its folder and lose the judge an event unseen. So: every module in main/ that
// starts a file-system watch calls countWatchEvent.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/cli.js';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

/** Whether a file imports a watch: `watch`/`watchFile` from node:fs, the fs namespace's watch, or chokidar. */
function startsWatches(file: string, text: string): boolean {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  let found = false;
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const from = node.moduleSpecifier.text;
      if (from === 'chokidar') found = true;
      if ((from === 'node:fs' || from === 'fs') && node.importClause) {
        const b = node.importClause.namedBindings;
        if (b && ts.isNamedImports(b) && b.elements.some((e) => !e.isTypeOnly && ['watch', 'watchFile'].includes((e.propertyName ?? e.name).text))) found = true;
        if (b && ts.isNamespaceImport(b) && /\b\w+\.watch(File)?\(/.test(text)) found = true;
        if (node.importClause.name && /\b\w+\.watch(File)?\(/.test(text)) found = true;
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

describe('file-system watchers on the host\'s loop', () => {
  it('every module that starts a watch counts its events for the overflow guard', () => {
    const watching = sources(join(repoRoot, 'main')).filter((f) => startsWatches(f, readFileSync(f, 'utf8')));
    // The guard itself, the judge's folder watch, the policy file and the plugin folders.
    expect(watching.length).toBeGreaterThanOrEqual(3);
    const silent = watching.filter((f) => !readFileSync(f, 'utf8').includes('countWatchEvent(')).map((f) => relative(repoRoot, f));
    expect(silent, 'these modules watch files without calling countWatchEvent (main/core/watch-events.ts)').toEqual([]);
  });
});
