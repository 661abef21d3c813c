#!/usr/bin/env node
// Entry point installed as `gatehouse`. The CLI itself is built to out/main/cli.js.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// Claude Code runs `gatehouse hook` before every tool call: answer it without loading the whole
// command line. Help and usage mistakes (hookMain returns false) go on to the full CLI.
if (process.argv[2] === 'hook') {
  const hook = fileURLToPath(new URL('../out/main/hook.js', import.meta.url));
  if (existsSync(hook) && (await (await import(hook)).hookMain(process.argv.slice(3)))) process.exit(process.exitCode ?? 0);
}

const cli = fileURLToPath(new URL('../out/main/cli.js', import.meta.url));
if (!existsSync(cli)) {
  console.error('gatehouse: not built yet. Run `npm run build` (or `npm start`) in the Gatehouse folder first.');
  process.exit(1);
}
await import(cli);
