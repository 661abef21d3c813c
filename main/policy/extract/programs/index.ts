// The program table: every family's handlers by program name, and the links they follow.
import type { Handler } from '../shell/types.js';
import { ARCHIVE_PROGRAMS } from './archive.js';
import { BUILD_PROGRAMS } from './build.js';
import { BUILTIN_PROGRAMS } from './builtins.js';
import { CREDENTIAL_PROGRAMS } from './credentials.js';
import { EDITOR_PROGRAMS } from './editors.js';
import { ENV_RUNNER_PROGRAMS } from './env-runners.js';
import { FILE_PROGRAMS } from './files.js';
import { withFollowedLinks } from './follow-links.js';
import { INTERPRETER_PROGRAMS } from './interpreters.js';
import { NETWORK_PROGRAMS } from './network.js';
import { PACKAGE_PROGRAMS } from './packages.js';
import { SERVER_CLIENT_PROGRAMS } from './server-clients.js';
import { SERVICE_PROGRAMS } from './services.js';
import { TERMINAL_PROGRAMS } from './terminals.js';
import { TEXT_PROGRAMS } from './text.js';
import { VCS_PROGRAMS } from './vcs.js';
import { WRAPPER_PROGRAMS } from './wrappers.js';

/** Each family's table, by family name (the test checks that no program is in two). */
export const FAMILIES: Readonly<Record<string, Readonly<Record<string, Handler>>>> = {
  builtins: BUILTIN_PROGRAMS,
  files: FILE_PROGRAMS,
  text: TEXT_PROGRAMS,
  archive: ARCHIVE_PROGRAMS,
  network: NETWORK_PROGRAMS,
  'server-clients': SERVER_CLIENT_PROGRAMS,
  vcs: VCS_PROGRAMS,
  packages: PACKAGE_PROGRAMS,
  'env-runners': ENV_RUNNER_PROGRAMS,
  build: BUILD_PROGRAMS,
  interpreters: INTERPRETER_PROGRAMS,
  wrappers: WRAPPER_PROGRAMS,
  terminals: TERMINAL_PROGRAMS,
  services: SERVICE_PROGRAMS,
  credentials: CREDENTIAL_PROGRAMS,
  editors: EDITOR_PROGRAMS,
};

/**
 * Program name → handler, for run(). A name two families claim would be judged by whichever came
 * last, silently: the registry refuses to load instead.
 */
export const PROGRAMS: Readonly<Record<string, Handler>> = joinFamilies(FAMILIES);

export function joinFamilies(families: Readonly<Record<string, Readonly<Record<string, Handler>>>>): Record<string, Handler> {
  const out: Record<string, Handler> = {};
  const claimedBy = new Map<string, string>();
  for (const [family, table] of Object.entries(families)) {
    for (const [name, handler] of Object.entries(table)) {
      const first = claimedBy.get(name);
      if (first !== undefined) throw new Error(`programs/${family}.ts and programs/${first}.ts both handle ${name}: keep it in one family`);
      claimedBy.set(name, family);
      out[name] = handler;
    }
  }
  withFollowedLinks(out);
  return out;
}
