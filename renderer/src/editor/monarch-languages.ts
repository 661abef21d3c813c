// Monarch tokenizers for the two manifest formats Monaco has no basic grammar for: TOML
// (gatehouse.toml, WraithRun's tool.toml) and JSON (gatehouse.json). Colouring only; the host
// validates the text and its problems come back as markers.
import type { languages } from 'monaco-editor/editor/editor.api';

export const tomlConf: languages.LanguageConfiguration = {
  comments: { lineComment: '#' },
  brackets: [
    ['[', ']'],
    ['{', '}'],
  ],
  autoClosingPairs: [
    { open: '[', close: ']' },
    { open: '{', close: '}' },
    { open: '"', close: '"', notIn: ['string'] },
    { open: "'", close: "'", notIn: ['string'] },
  ],
  surroundingPairs: [
    { open: '[', close: ']' },
    { open: '{', close: '}' },
    { open: '"', close: '"' },
    { open: "'", close: "'" },
  ],
};

export const tomlLanguage: languages.IMonarchLanguage = {
  defaultToken: '',
  tokenPostfix: '.toml',
  brackets: [
    { open: '[', close: ']', token: 'delimiter.bracket' },
    { open: '{', close: '}', token: 'delimiter.curly' },
  ],
  tokenizer: {
    root: [
      { include: '@whitespace' },
      // [table] and [[array.of.tables]] headers
      [/^\s*\[\[[^\]]*\]\]/, 'type.identifier'],
      [/^\s*\[[^\]]*\]/, 'type.identifier'],
      // key = (bare, quoted and dotted keys)
      [/(^\s*)([A-Za-z0-9_.-]+)(\s*)(=)/, ['', 'key', '', 'delimiter']],
      [/(^\s*)("(?:[^"\\]|\\.)*")(\s*)(=)/, ['', 'key', '', 'delimiter']],
      [/(^\s*)('[^']*')(\s*)(=)/, ['', 'key', '', 'delimiter']],
      { include: '@values' },
    ],
    values: [
      { include: '@whitespace' },
      [/"""/, 'string', '@mlBasic'],
      [/'''/, 'string', '@mlLiteral'],
      [/"/, 'string', '@basic'],
      [/'[^']*'/, 'string'],
      [/\b(?:true|false)\b/, 'keyword'],
      [/\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})?)?/, 'number'],
      [/\d{2}:\d{2}:\d{2}(?:\.\d+)?/, 'number'],
      [/[+-]?(?:inf|nan)\b/, 'number'],
      [/0x[0-9A-Fa-f_]+|0o[0-7_]+|0b[01_]+/, 'number'],
      [/[+-]?\d[\d_]*(?:\.[\d_]+)?(?:[eE][+-]?\d+)?/, 'number'],
      [/(\{)(\s*)([A-Za-z0-9_.-]+)(\s*)(=)/, ['@brackets', '', 'key', '', 'delimiter']],
      [/(,)(\s*)([A-Za-z0-9_.-]+)(\s*)(=)/, ['delimiter', '', 'key', '', 'delimiter']],
      [/[[\]{}]/, '@brackets'],
      [/,/, 'delimiter'],
      [/[^\s#,[\]{}"']+/, 'invalid'],
    ],
    whitespace: [
      [/\s+/, 'white'],
      [/#.*$/, 'comment'],
    ],
    basic: [
      [/[^"\\]+/, 'string'],
      [/\\(?:[btnfr"\\]|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8})/, 'string.escape'],
      [/\\./, 'string.escape.invalid'],
      [/"/, 'string', '@pop'],
    ],
    mlBasic: [
      [/[^"\\]+/, 'string'],
      [/\\(?:[btnfr"\\]|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|\s*$)/, 'string.escape'],
      [/"""/, 'string', '@pop'],
      [/["\\]/, 'string'],
    ],
    mlLiteral: [
      [/[^']+/, 'string'],
      [/'''/, 'string', '@pop'],
      [/'/, 'string'],
    ],
  },
};

export const jsonConf: languages.LanguageConfiguration = {
  brackets: [
    ['{', '}'],
    ['[', ']'],
  ],
  autoClosingPairs: [
    { open: '{', close: '}', notIn: ['string'] },
    { open: '[', close: ']', notIn: ['string'] },
    { open: '"', close: '"', notIn: ['string'] },
  ],
};

export const jsonLanguage: languages.IMonarchLanguage = {
  defaultToken: 'invalid',
  tokenPostfix: '.json',
  brackets: [
    { open: '{', close: '}', token: 'delimiter.bracket' },
    { open: '[', close: ']', token: 'delimiter.array' },
  ],
  tokenizer: {
    root: [
      [/\s+/, 'white'],
      // A string followed by a colon is a key.
      [/("(?:[^"\\]|\\.)*")(\s*)(:)/, ['string.key', 'white', 'delimiter']],
      [/"(?:[^"\\]|\\(?:["\\/bfnrt]|u[0-9A-Fa-f]{4}))*"/, 'string.value'],
      [/"(?:[^"\\]|\\.)*"?/, 'string.invalid'],
      [/-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/, 'number'],
      [/\b(?:true|false|null)\b/, 'keyword'],
      [/[{}[\]]/, '@brackets'],
      [/[,:]/, 'delimiter'],
    ],
  },
};
