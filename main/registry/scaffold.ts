// "New plugin": a small working tool in shell, Python or Node that passes validation and the
// scan as written, so an author starts from green; or (wasm-as) an AssemblyScript WebAssembly
// tool on the Extism ABI, valid once `gatehouse plugin build` has made plugin.wasm with the
// compiler that ships with Gatehouse (plugin-build.ts): nothing to install, no node_modules in
// the plugin folder to fail its scan.
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const SCAFFOLD_LANGS = ['sh', 'py', 'node', 'wasm-as', 'ts-module'] as const;
export type ScaffoldLang = (typeof SCAFFOLD_LANGS)[number];

const entry: Record<Exclude<ScaffoldLang, 'wasm-as' | 'ts-module'>, { file: string; text: string }> = {
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
  if (lang === 'wasm-as') return scaffoldAssemblyScript(dir, name);
  if (lang === 'ts-module') return scaffoldModule(dir, name);
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

/**
 * A module plugin (Triggerfish's mod.ts format, no manifest file): one tool, `echo`, that logs
 * and returns its message. It passes validation and the scan as written, and needs no build.
 */
function scaffoldModule(dir: string, name: string): { dir: string; files: string[] } {
  const text = `// A Gatehouse module plugin (Triggerfish's mod.ts format). Guide: docs/guide-plugin-author.md, "Module plugins".
// Agents see the tool as ${name}__echo. fetch() reaches only the URLs in declaredEndpoints.

export const manifest = {
  name: "${name}",
  version: "0.1.0",
  description: "Echoes a message back (a starting point for your tool).",
  classification: "PUBLIC" as const,
  trust: "sandboxed" as const,
  declaredEndpoints: [] as string[],
};

export const toolDefinitions = [
  {
    name: "echo",
    description: "Echo a message back.",
    parameters: {
      message: { type: "string", description: "Text to echo back.", required: true },
    },
  },
];

interface Context {
  log: { info(message: string, ...data: unknown[]): void };
}

export function createExecutor(context: Context) {
  return async (name: string, input: { message?: string }): Promise<string | null> => {
    if (name !== "echo") return null;
    context.log.info("echoing", { length: input.message?.length ?? 0 });
    return input.message ?? "";
  };
}
`;
  writeFileSync(join(dir, 'mod.ts'), text);
  return { dir, files: ['mod.ts'] };
}

/** The command that builds a wasm-as plugin's module, run in its folder. */
export const WASM_AS_BUILD = 'gatehouse plugin build .';

const AS_SOURCE = `// A Gatehouse WebAssembly tool in AssemblyScript, on the Extism plugin ABI: the host functions
// below are all it can reach. Build (in the plugin folder): ${WASM_AS_BUILD}
@external("extism:host/env", "input_length") declare function input_length(): i64;
@external("extism:host/env", "input_load_u8") declare function input_load_u8(offset: i64): u8;
@external("extism:host/env", "alloc") declare function alloc(length: i64): i64;
@external("extism:host/env", "store_u8") declare function store_u8(offset: i64, value: u8): void;
@external("extism:host/env", "output_set") declare function output_set(offset: i64, length: i64): void;

function input(): string {
  const n = <i32>input_length();
  const bytes = new Uint8Array(n);
  for (let i = 0; i < n; i++) bytes[i] = input_load_u8(<i64>i);
  return String.UTF8.decode(bytes.buffer);
}

function output(text: string): void {
  const bytes = Uint8Array.wrap(String.UTF8.encode(text));
  const block = alloc(<i64>bytes.length);
  for (let i = 0; i < bytes.length; i++) store_u8(block + <i64>i, bytes[i]);
  output_set(block, <i64>bytes.length);
}

// The tool: its arguments arrive as one JSON object, its result is one JSON object.
export function echo(): i32 {
  const args = input();
  output('{"received":' + args + ',"length":' + args.length.toString() + "}");
  return 0;
}
`;

function scaffoldAssemblyScript(dir: string, name: string): { dir: string; files: string[] } {
  const manifest = `# Gatehouse plugin manifest (a WebAssembly tool). Fields: docs/plugins.md; the WebAssembly
# chapter of docs/guide-plugin-author.md. Build plugin.wasm first, in this folder: ${WASM_AS_BUILD}
name = "${name}"
description = "Echoes its arguments back (a starting point for your WebAssembly tool)."
version = "0.1.0"
kind = "wasm"
wasm = "plugin.wasm"

[tools.echo]
description = "Echo the message back with its length."
export = "echo"

[tools.echo.parameters.message]
type = "string"
required = true
description = "Text to echo back."

[limits]
fuel = 1000000
memory_mb = 16
timeout_secs = 5
`;
  const readme = `# ${name}

A Gatehouse WebAssembly tool in AssemblyScript. In this folder, build it (offline, with the
AssemblyScript compiler that ships with Gatehouse: nothing to install here), then enable it:

    ${WASM_AS_BUILD}
    gatehouse plugin enable ${name}

(If you made it with \`--home\` or \`--dir\`, give \`plugin enable\` the options \`plugin new\` printed.)
Edit assembly/index.ts and build again; rebuilding changes plugin.wasm, so an enabled plugin is
quarantined until you approve the change.
`;
  mkdirSync(join(dir, 'assembly'));
  writeFileSync(join(dir, 'gatehouse.toml'), manifest);
  writeFileSync(join(dir, 'assembly', 'index.ts'), AS_SOURCE);
  writeFileSync(join(dir, 'README.md'), readme);
  return { dir, files: ['gatehouse.toml', 'assembly/index.ts', 'README.md'] };
}
