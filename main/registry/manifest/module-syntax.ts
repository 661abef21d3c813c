// Syntax errors in a module plugin's TypeScript or JavaScript, with their line and column, for the
// editor's markers while the author types. Only parsing: types are not checked (Gatehouse
// strips them), and the exports are validated by the sandboxed child once the file is saved.
import { createRequire } from 'node:module';
import type * as TS from 'typescript';
import type { Problem } from '../types.js';

let ts: typeof TS | undefined;

export function moduleSyntaxProblems(path: string, content: string): Problem[] {
  // As the scanner loads it: __filename in the CommonJS (Electron) bundle, import.meta.url in ESM.
  ts ??= createRequire(typeof __filename === 'string' ? __filename : import.meta.url)('typescript') as typeof TS;
  const r = ts.transpileModule(content, { fileName: path, reportDiagnostics: true, compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, isolatedModules: true } });
  return (r.diagnostics ?? [])
    .filter((d) => d.category === ts!.DiagnosticCategory.Error)
    .slice(0, 50)
    .map((d) => {
      const at = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : { line: 0, character: 0 };
      return { file: path, line: at.line + 1, column: at.character + 1, severity: 'error' as const, code: 'module.syntax', message: `${ts!.flattenDiagnosticMessageText(d.messageText, ' ')}; fix it before saving (the module will not load).` };
    });
}
