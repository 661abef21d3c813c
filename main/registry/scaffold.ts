// "New plugin": a small working tool in shell, Python or Node that passes validation and the
// scan as written, so an author starts from green.
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const SCAFFOLD_LANGS = ['sh', 'py', 'node'] as const;
export type ScaffoldLang = (typeof SCAFFOLD_LANGS)[number];

const entry: Record<ScaffoldLang, { file: string; text: string }> = {
  sh: {
    file: 'run.sh',
    text: `#!/bin/sh
# Gatehouse tool: reads the arguments as one JSON object on stdin and prints one JSON
# object on stdout. Anything written to stderr is shown to the operator on failure.
input=$(cat)
printf '{"received": %s}\\n' "$input"
`,
  },
  py: {
    file: 'run.py',
    text: `#!/usr/bin/env python3
"""Gatehouse tool: one JSON object in on stdin, one JSON object out on stdout."""
import json
import sys


def main() -> None:
    args = json.load(sys.stdin)
    message = args.get("message", "")
    json.dump({"echo": message, "length": len(message)}, sys.stdout)


if __name__ == "__main__":
    main()
`,
  },
  node: {
    file: 'run.mjs',
    text: `#!/usr/bin/env node
// Gatehouse tool: one JSON object in on stdin, one JSON object out on stdout.
let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => (input += chunk));
process.stdin.on('end', () => {
  const args = JSON.parse(input || '{}');
  const message = String(args.message ?? '');
  process.stdout.write(JSON.stringify({ echo: message, length: message.length }) + '\\n');
});
`,
  },
};

export function scaffoldPlugin(parent: string, name: string, lang: ScaffoldLang): { dir: string; files: string[] } {
  if (!/^[a-zA-Z0-9-]{1,40}$/.test(name) || name.includes('__')) {
    throw new Error(`"${name}" is not a usable plugin name: use 1-40 letters, digits or "-".`);
  }
  const dir = join(parent, name);
  if (existsSync(dir)) throw new Error(`${dir} already exists; pick another name or remove it.`);
  mkdirSync(dir, { recursive: true });
  const e = entry[lang];
  const manifest = `# Gatehouse plugin manifest. Fields: docs/plugins.md
name = "${name}"
description = "Echoes a message back (a starting point for your tool)."
version = "0.1.0"
kind = "tool"
command = "${e.file}"
timeout_secs = 10

[parameters.message]
type = "string"
required = true
description = "Text to echo back."
`;
  writeFileSync(join(dir, 'gatehouse.toml'), manifest);
  writeFileSync(join(dir, e.file), e.text);
  chmodSync(join(dir, e.file), 0o755);
  return { dir, files: ['gatehouse.toml', e.file] };
}
