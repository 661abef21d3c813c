// One command builds everything: esbuild for the Node side (CLI, Electron main, preload,
// benchmarks), Vite for the renderer. See docs/build.md for why not electron-vite.
import { build as esbuild } from 'esbuild';
import { build as vite } from 'vite';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { copyFile, mkdir } from 'node:fs/promises';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
// Where each Node-side job writes its entry, and how the desktop package ships it: one list, which
// electron-builder.yml must agree with (test/repo/packaging.test.ts checks it).
const { entries } = JSON.parse(readFileSync(new URL('./build-entries.json', import.meta.url), 'utf8'));
const out = (job) => {
  const e = entries.find((x) => x.job === job);
  if (!e) throw new Error(`scripts/build-entries.json has no entry for the build job ${job}: add it`);
  return e.out;
};
const outdir = (job) => out(job).slice(0, out(job).lastIndexOf('/'));
const readdirSafe = (dir) => {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
};
const watch = process.argv.includes('--watch');
const only = process.argv.find((a) => a.startsWith('--only='))?.slice(7);
const started = Date.now();

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
  // Dependencies stay in node_modules: native addons (better-sqlite3) cannot be bundled.
  packages: 'external',
  define: { __GATEHOUSE_VERSION__: JSON.stringify(pkg.version) },
};

const jobs = {
  // Split: each command loads what it needs when it runs (main/cli/program.ts), so `gatehouse
  // --help` does not load the host. The chunks sit beside cli.js, not in a folder of their own:
  // modules in them find the worker files and the console next to themselves (import.meta.url).
  cli: () => {
    const dir = outdir('cli');
    for (const f of readdirSafe(dir)) if (/^cli-chunk-.*\.js(\.map)?$/.test(f)) rmSync(`${dir}/${f}`);
    return esbuild({ ...common, entryPoints: { cli: 'main/cli/index.ts' }, outdir: dir, splitting: true, chunkNames: 'cli-chunk-[hash]', format: 'esm' });
  },
  // `gatehouse hook` runs before every tool call Claude Code makes: its own small bundle starts fast.
  // Split: what it loads only when the host cannot be asked (the settings, zod) is a chunk of
  // its own, in out/main/hook-chunks, so the answered path never reads it.
  // Beside it, the bash + curl client Claude Code's hooks run where bash and curl are (main/cli/hook-client.sh).
  hook: () => Promise.all([
    esbuild({ ...common, entryPoints: { hook: 'main/cli/hook-command.ts' }, outdir: outdir('hook'), splitting: true, chunkNames: 'hook-chunks/[name]-[hash]', format: 'esm' }),
    mkdir(outdir('hook'), { recursive: true }).then(() => copyFile('main/cli/hook-client.sh', `${outdir('hook')}/gatehouse-hook.sh`)),
  ]),
  // import.meta does not exist in CommonJS; modules that use it fall back to __filename there.
  electron: () => esbuild({ ...common, define: { ...common.define, 'import.meta.url': 'undefined' }, entryPoints: ['main/shells/electron/main.ts'], outfile: out('electron'), format: 'cjs', external: ['electron'] }),
  // The sandboxed preload may only require('electron'): everything else is bundled in.
  preload: () => esbuild({ ...common, packages: undefined, entryPoints: ['preload/index.ts'], outfile: out('preload'), format: 'cjs', external: ['electron'], platform: 'browser', target: 'chrome120' }),
  bench: () => esbuild({ ...common, entryPoints: ['bench/run.ts'], outfile: out('bench'), format: 'esm' }),
  // `npm run soak` (bench/soak.ts): a real serve host under 50 agents; not part of `npm test`.
  soak: () => esbuild({ ...common, entryPoints: ['bench/soak-main.ts'], outfile: out('soak'), format: 'esm' }),
  // The worker thread that extracts large calls under a deadline (main/policy/extract/guarded-extract.ts
  // finds it next to the bundle that starts it). CommonJS, so the ESM CLI, the bench and the CJS
  // Electron bundle all load the one file.
  extractWorker: () => esbuild({ ...common, define: { ...common.define, 'import.meta.url': 'undefined' }, entryPoints: ['main/policy/extract/extract-worker.ts'], outfile: out('extractWorker'), format: 'cjs' }),
  // The audit log's writer thread (main/audit/audit-writer.ts finds it next to the bundle that
  // starts it). CommonJS for the same reason as the extraction worker.
  auditWriter: () => esbuild({ ...common, define: { ...common.define, 'import.meta.url': 'undefined' }, entryPoints: ['main/audit/audit-writer-worker.ts'], outfile: out('auditWriter'), format: 'cjs' }),
  // The thread that forks terminals' programs off the event loop (main/pty/fork-thread.ts finds it
  // next to the bundle that starts it). CommonJS for the same reason as the extraction worker.
  ptyForkWorker: () => esbuild({ ...common, define: { ...common.define, 'import.meta.url': 'undefined' }, entryPoints: ['main/pty/pty-fork-worker.ts'], outfile: out('ptyForkWorker'), format: 'cjs' }),
  // The spawner process that starts one-shot plugin processes so the host never forks
  // (main/pty/spawner.ts finds it next to the bundle that starts it). Run by a real Node outside
  // Electron, so unpacked from the asar. CommonJS for the same reason as the extraction worker.
  spawner: () => esbuild({ ...common, define: { ...common.define, 'import.meta.url': 'undefined' }, entryPoints: ['main/pty/spawner-process.ts'], outfile: out('spawner'), format: 'cjs' }),
  // The worker threads of WebAssembly plugins (main/runner/wasm/worker-file.ts finds it next to the
  // bundle that starts it). ESM: binaryen, which it loads to meter modules, is ESM with top-level await.
  wasmWorker: () => esbuild({ ...common, entryPoints: ['main/runner/wasm/wasm-worker.ts'], outfile: out('wasmWorker'), format: 'esm' }),
  // The sandboxed child process that holds those workers (main/runner/wasm/wasm-host-process.ts).
  wasmHost: () => esbuild({ ...common, entryPoints: ['main/runner/wasm/wasm-host-process.ts'], outfile: out('wasmHost'), format: 'esm' }),
  // The sandboxed child of a module plugin (main/runner/module/module-child.ts; child-file.ts finds it next to the bundle that starts it).
  moduleChild: () => esbuild({ ...common, entryPoints: ['main/runner/module/module-child.ts'], outfile: out('moduleChild'), format: 'esm' }),
  // The worker thread of a terminal adapter's Lua (main/adapters/worker-file.ts finds it next to the bundle).
  luaWorker: () => esbuild({ ...common, entryPoints: ['main/adapters/lua-worker.ts'], outfile: out('luaWorker'), format: 'esm' }),
  renderer: () => vite({ configFile: 'vite.config.ts', logLevel: 'warn' }),
};

if (!only) rmSync('out', { recursive: true, force: true });
const names = only ? only.split(',') : Object.keys(jobs);
await Promise.all(names.map((n) => {
  if (!jobs[n]) throw new Error(`unknown build job ${n}; known: ${Object.keys(jobs).join(', ')}`);
  return jobs[n]();
}));
if (!watch) console.log(`built ${names.join(', ')} in ${((Date.now() - started) / 1000).toFixed(1)}s`);
