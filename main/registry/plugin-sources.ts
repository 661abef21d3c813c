// Where plugins are found, and the tool names no plugin may take. Here rather than in the
// composition root because `gatehouse doctor` reads plugins without starting a host.
import { join } from 'node:path';
import type { PluginSource } from './plugin-registry.js';

/** Tool names Gatehouse itself provides; no plugin may take them. */
export const BUILTIN_TOOLS = ['shell'] as const;

export function pluginSources(home: string, projectDir: string, extra: string[] = []): PluginSource[] {
  return [
    { dir: join(home, 'plugins'), origin: 'home' },
    { dir: join(projectDir, '.gatehouse', 'plugins'), origin: 'project' },
    ...extra.map((dir) => ({ dir, origin: 'cli' as const })),
  ];
}
