// Whether an agent is installed here, for detect(): its command on the PATH. Only a hint for the
// console ("found"); writing its configuration does not depend on it.
import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The first executable `name` on `path` (default: this process's PATH), or null. */
export function commandOnPath(name: string, path = process.env.PATH ?? ''): string | null {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const file = join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return null;
}

/** What detect() reports: which of the agent's own `paths` exist here, and its `command` on the PATH. */
export function detectAgent(paths: readonly string[], command: string): { found: boolean; evidence: string[] } {
  const evidence = paths.filter((p) => existsSync(p));
  const onPath = commandOnPath(command);
  if (onPath) evidence.push(onPath);
  return { found: evidence.length > 0, evidence };
}
