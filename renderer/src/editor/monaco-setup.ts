// Monaco, bundled from node_modules and loaded only when the Plugins view opens an editor
// (code-editor.tsx imports this module dynamically): the rest of the console never pays for it.
//
// Only the editor core, a few editing contributions and the languages plugin authors use are
// imported, not the `monaco-editor` entry (which pulls every language service and its workers).
//
// SECURITY (see shared/csp.ts): the CSP allows scripts and workers from 'self' only. The editor
// worker is emitted by Vite as a file next to the bundle and started with `new Worker(url)`;
// never switch to a blob: or data: worker, a CDN loader or an AMD `require` config, which the
// CSP would (rightly) refuse.
import * as monaco from 'monaco-editor/editor/editor.api';
import EditorWorker from 'monaco-editor/editor/editor.worker?worker';

// Editing contributions: marker hovers, find, F8 to the next problem, comments, brackets…
import 'monaco-editor/features/codicon/register';
import 'monaco-editor/features/hover/register';
import 'monaco-editor/features/find/register';
import 'monaco-editor/features/gotoError/register';
import 'monaco-editor/features/bracketMatching/register';
import 'monaco-editor/features/comment/register';
import 'monaco-editor/features/clipboard/register';
import 'monaco-editor/features/contextmenu/register';
import 'monaco-editor/features/cursorUndo/register';
import 'monaco-editor/features/folding/register';
import 'monaco-editor/features/linesOperations/register';
import 'monaco-editor/features/wordOperations/register';
import 'monaco-editor/features/multicursor/register';
// Highlights invisible and confusable characters (Trojan Source) in the editor worker.
import 'monaco-editor/features/unicodeHighlighter/register';

// Syntax colouring (Monarch tokenizers, each loaded on first use).
import 'monaco-editor/languages/definitions/shell/register';
import 'monaco-editor/languages/definitions/python/register';
import 'monaco-editor/languages/definitions/javascript/register';
import 'monaco-editor/languages/definitions/typescript/register';
import 'monaco-editor/languages/definitions/yaml/register';
import 'monaco-editor/languages/definitions/ini/register';
import 'monaco-editor/languages/definitions/markdown/register';
// Terminal adapters' code (main.lua).
import 'monaco-editor/languages/definitions/lua/register';

import { jsonConf, jsonLanguage, tomlConf, tomlLanguage } from './monarch-languages.ts';

declare global {
  interface Window {
    MonacoEnvironment?: monaco.Environment;
  }
}

self.MonacoEnvironment = {
  // Only the generic editor worker is needed: no language service runs in this console.
  getWorker: () => new EditorWorker(),
};

// Monaco ships no Monarch grammar for TOML, and JSON only as a full language service with its
// own worker; a tokenizer is all the editor needs (validation comes from the host).
monaco.languages.register({ id: 'toml', extensions: ['.toml'], aliases: ['TOML', 'toml'] });
monaco.languages.setMonarchTokensProvider('toml', tomlLanguage);
monaco.languages.setLanguageConfiguration('toml', tomlConf);
monaco.languages.register({ id: 'json', extensions: ['.json'], aliases: ['JSON', 'json'] });
monaco.languages.setMonarchTokensProvider('json', jsonLanguage);
monaco.languages.setLanguageConfiguration('json', jsonConf);

// The console's palette (styles/theme.css), so the editor sits in its panel without a seam.
monaco.editor.defineTheme('gatehouse-dark', {
  base: 'vs-dark',
  inherit: true,
  rules: [
    { token: 'type.identifier.toml', foreground: '7db2ff' },
    { token: 'key.toml', foreground: '9cdcfe' },
    { token: 'string.key.json', foreground: '9cdcfe' },
  ],
  colors: {
    'editor.background': '#10141b',
    'editor.lineHighlightBackground': '#1a202b',
    'editorGutter.background': '#10141b',
    'editorLineNumber.foreground': '#5f6878',
    'editorLineNumber.activeForeground': '#d6dbe3',
    'editorWidget.background': '#1a202b',
    'editorWidget.border': '#343d4d',
    'editorHoverWidget.background': '#1a202b',
    'editorHoverWidget.border': '#343d4d',
    'editorError.foreground': '#f0625d',
    'editorWarning.foreground': '#d9a33c',
    'editorInfo.foreground': '#5b9dff',
    'focusBorder': '#5b9dff',
  },
});

// The light theme's twin (styles/theme.css, data-theme="light"): the editor follows the console.
monaco.editor.defineTheme('gatehouse-light', {
  base: 'vs',
  inherit: true,
  rules: [
    { token: 'type.identifier.toml', foreground: '1d5bc4' },
    { token: 'key.toml', foreground: '0b5a8c' },
    { token: 'string.key.json', foreground: '0b5a8c' },
  ],
  colors: {
    'editor.background': '#fbfcfd',
    'editor.lineHighlightBackground': '#eceff4',
    'editorGutter.background': '#fbfcfd',
    'editorLineNumber.foreground': '#6b7483',
    'editorLineNumber.activeForeground': '#1c2230',
    'editorWidget.background': '#ffffff',
    'editorWidget.border': '#b4bcc8',
    'editorHoverWidget.background': '#ffffff',
    'editorHoverWidget.border': '#b4bcc8',
    'editorError.foreground': '#b8231d',
    'editorWarning.foreground': '#7d5200',
    'editorInfo.foreground': '#1d5bc4',
    'focusBorder': '#1d5bc4',
  },
});

export { monaco };
export type Monaco = typeof monaco;
