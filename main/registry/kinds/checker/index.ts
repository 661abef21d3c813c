// kind = "checker": a long-lived crust NDJSON process that sees agents' calls and can only block
// them. It has no tools; main/checkers/ runs it for every plugin whose kind judges calls.
import type { PluginKindProvider } from '../provider.js';

/** A checker's default per-call timeout (crust's): the schema's default of 30 s is a tool's, and a checker that blocks every call must answer fast. */
export const CHECKER_TIMEOUT_SECS = 5;

export const checkerKind: PluginKindProvider = {
  name: 'checker',
  info: {
    label: 'checker',
    callable: false,
    judgesCalls: true,
    longLived: true,
    noTools: 'nothing (a checker only blocks calls)',
  },
  discover: { by: 'manifest' },
  toolNaming: 'none',
  manifest: {
    toolsForbidden: { why: 'a checker has no tools (it only receives calls to judge)', hint: ' (settings for the checker go in `config`)' },
    timeoutSecs: (raw) => raw.timeout_secs ?? CHECKER_TIMEOUT_SECS,
  },
};
