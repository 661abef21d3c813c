// A WraithRun tool plugin written into a host's plugins folder for a spec, in one rename so hot
// reload never sees half a plugin.
import { chmodSync, mkdirSync, mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Fails every call: says why on stderr (with its input, so each run is told apart) and exits 1. */
export const FAILING_TOOL = `#!/bin/sh
input=$(cat)
echo "flaky: upstream unavailable for $input" >&2
exit 1
`;

/** Echoes its input as JSON. */
export const SUCCEEDING_TOOL = `#!/bin/sh
input=$(cat)
printf '{"received": %s}\\n' "$input"
`;

export function writeToolPlugin(home: string, name: string, script: string): void {
  const staging = mkdtempSync(join(home, `.staging-${name}-`));
  writeFileSync(
    join(staging, 'tool.toml'),
    `name = "${name}"
description = "A tool written by an e2e spec."
version = "1.0.0"
command = "run.sh"
timeout_secs = 5

[parameters.message]
type = "string"
required = true
description = "Anything; the tool prints it."
`,
  );
  writeFileSync(join(staging, 'run.sh'), script);
  chmodSync(join(staging, 'run.sh'), 0o755);
  mkdirSync(join(home, 'plugins'), { recursive: true });
  renameSync(staging, join(home, 'plugins', name));
}
