// What every `gatehouse` command loads before it runs: the built cli.js and the chunks it imports
// statically. Only Commander and Node's own modules may be among them; what a command runs (the
// host, SQLite, zod schemas, the judge's shell grammar, the team client) is imported by its action
// (main/cli/program.ts). Loading it all took ~3.5× a bare Node start before each command, --help
// and usage mistakes included; `npm run bench` measures the start ("command line start-up").
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { builtinModules } from 'node:module';
import { describe, expect, it } from 'vitest';
import { repoRoot, runCli } from '../../support/cli.js';
import { tempDir } from '../../support/temp.js';

/** Static `import … from "x"`, `import "x"` and `export … from "x"` at the start of a line; never `import("x")`. */
const STATIC = /(?:^|\n)[ \t]*(?:import|export)[ \t]*(?:[^'";]*?[\s}*]from[ \t]*)?["']([^"']+)["']/g;

/** The packages (not Node built-ins) reached from `entry` by static imports alone, each with the file that imports it. */
function staticPackages(entry: string): Map<string, string> {
  const seen = new Set<string>();
  const packages = new Map<string, string>();
  const walk = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const m of readFileSync(file, 'utf8').matchAll(STATIC)) {
      const spec = m[1]!;
      if (spec.startsWith('.')) walk(resolve(dirname(file), spec));
      else if (!spec.startsWith('node:') && !builtinModules.includes(spec)) packages.set(spec, file);
    }
  };
  walk(entry);
  return packages;
}

describe('the command line start', () => {
  it('loads no package but Commander before a command runs', () => {
    const found = staticPackages(join(repoRoot, 'out/main/cli.js'));
    expect(Object.fromEntries(found), 'import these inside the action that needs them (main/cli/*-commands.ts)').toEqual({ commander: join(repoRoot, 'out/main/cli.js') });
  });

  it('the check finds a package imported statically two chunks down, and passes over one imported on demand', () => {
    const dir = tempDir('gatehouse-cli-start-');
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'cli.js'), 'import {\n  a\n} from "./chunk-a.js";\nimport { Command } from "commander";\nconst later = () => import("better-sqlite3");\n');
    writeFileSync(join(dir, 'chunk-a.js'), 'export { b } from "./sub/chunk-b.js";\nimport "node:fs";\nimport { join } from "path";\n');
    writeFileSync(join(dir, 'sub', 'chunk-b.js'), 'import { z } from "zod";\nexport const b = await import("pg");\n');
    expect(Object.fromEntries(staticPackages(join(dir, 'cli.js')))).toEqual({ commander: join(dir, 'cli.js'), zod: join(dir, 'sub', 'chunk-b.js') });
  });

  it("a command still loads what it needs when it runs: the agent-name check (agent-tokens.ts) and the settings' schema", async () => {
    const home = join(tempDir('gatehouse-cli-start-home-'), 'home');
    // agent token create checks the name (agent-tokens.ts, with zod) before any host starts.
    const bad = await runCli(['agent', 'token', 'create', 'no spaces', '--home', home]);
    expect(bad.code, bad.stderr).toBe(2);
    expect(bad.stderr).toMatch(/^gatehouse: Agent name "no spaces" is not allowed: an agent name is 1 to 64 characters/);
    // audit search --raw reads settings.json through its schema.
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, 'audit.db'), '');
    const raw = await runCli(['audit', 'search', 'x', '--raw', '--home', home]);
    expect(raw.code, raw.stderr).toBe(2);
    expect(raw.stderr).toMatch(/--raw needs the "Show raw audit values" setting/);
  });
});
