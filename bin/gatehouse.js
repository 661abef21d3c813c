#!/usr/bin/env node
// Entry point installed as `gatehouse`. The CLI itself is built to out/main/cli.js.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../out/main/cli.js', import.meta.url));
if (!existsSync(cli)) {
  console.error('gatehouse: not built yet. Run `npm run build` (or `npm start`) in the Gatehouse folder first.');
  process.exit(1);
}
await import(cli);
