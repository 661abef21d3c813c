// kind "module": a Triggerfish-style folder with a mod.ts (or mod.js) and no manifest file. The
// host reads its exports in a sandboxed child (main/runner/module/describe-module.ts) and runs its
// tools in warm children (main/runner/module/).
import { moduleSyntaxProblems } from '../../manifest/module-syntax.js';
import type { PluginKindProvider } from '../provider.js';

export const MODULE_ENTRY_FILES = ['mod.ts', 'mod.js'] as const;

export const moduleKind: PluginKindProvider = {
  name: 'module',
  info: { label: 'module', callable: true, judgesCalls: false, longLived: true, noTools: 'no tools' },
  discover: { by: 'entry-file', entryFiles: MODULE_ENTRY_FILES },
  // Triggerfish always prefixes a module's tools.
  toolNaming: 'always-prefixed',
  // The module's code: syntax errors as markers while the author types.
  checkSource: (path, content) => (/\.(ts|js|mjs)$/.test(path) ? moduleSyntaxProblems(path, content) : null),
  run: (a, engines) => engines.module(a),
};
