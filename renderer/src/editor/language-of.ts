// Which Monaco language colours a plugin file: by extension, else by the #! line.
const byExtension: Record<string, string> = {
  sh: 'shell',
  bash: 'shell',
  zsh: 'shell',
  py: 'python',
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  jsx: 'javascript',
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  tsx: 'typescript',
  toml: 'toml',
  json: 'json',
  yaml: 'yaml',
  yml: 'yaml',
  ini: 'ini',
  cfg: 'ini',
  conf: 'ini',
  md: 'markdown',
  lua: 'lua',
};

export function languageOf(path: string, firstLine = ''): string {
  const base = path.split('/').pop() ?? path;
  const dot = base.lastIndexOf('.');
  const ext = dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
  const known = byExtension[ext];
  if (known) return known;
  // "#!/bin/sh", "#!/usr/bin/env python3", "#!/usr/bin/env -S node --flag"
  const words = firstLine.startsWith('#!') ? firstLine.slice(2).trim().split(/\s+/) : [];
  let cmd = words[0]?.split('/').pop() ?? '';
  if (cmd === 'env') cmd = words.slice(1).find((w) => !w.startsWith('-')) ?? '';
  const interpreter = cmd.replace(/[\d.]+$/, '');
  if (interpreter === 'sh' || interpreter === 'bash' || interpreter === 'dash' || interpreter === 'zsh') return 'shell';
  if (interpreter === 'python') return 'python';
  if (interpreter === 'node' || interpreter === 'deno' || interpreter === 'bun') return 'javascript';
  return 'plaintext';
}
