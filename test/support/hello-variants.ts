// Copies of the example tool `hello` with one line of its manifest changed. hello itself is a
// confined reader (the strict sandbox, no write paths, no hosts): at autonomy "supervised" its
// calls are let through as reads. A test that needs a plugin call that asks at supervised uses
// `hello` given a write path: the same tool, the same output, no longer held to reading.
// Imported by the e2e fixtures too: node modules only.
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const HELLO_DIR = join(import.meta.dirname, '..', '..', 'examples', 'plugins', 'hello');

/** A write path for hello's manifest: enough to make its calls ask at supervised (it writes nothing). */
export const HELLO_WRITES = '\n[permissions]\nwrite = ["./out"]\n';

/**
 * Adds `toml` to the manifest of the hello copied to `dir` (before it is enabled: enabling pins
 * its files), ahead of its first table so that top-level keys (`pty = true`) stay top-level.
 */
export function changeHello(dir: string, toml: string): void {
  const manifest = join(dir, 'tool.toml');
  const text = readFileSync(manifest, 'utf8');
  const at = text.indexOf('\n[');
  writeFileSync(manifest, `${text.slice(0, at)}\n${toml.trim()}\n${text.slice(at)}`);
}

/** hello copied to `dir` under another name, with `toml` added to its manifest. */
export function helloVariant(dir: string, name: string, toml: string): string {
  cpSync(HELLO_DIR, dir, { recursive: true });
  const manifest = join(dir, 'tool.toml');
  writeFileSync(manifest, readFileSync(manifest, 'utf8').replace('name = "hello"', `name = "${name}"`));
  changeHello(dir, toml);
  return dir;
}
