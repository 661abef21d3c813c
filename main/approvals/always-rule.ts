// The user rule an "always" approval proposes. The UI shows it before saving; writing it to
// policy.yaml happens elsewhere. It allows what the operator approved and nothing near it: the
// same tool, exactly the same shell command (or, for other tools, the same path arguments), and
// only the operations, paths and hosts extracted from this call. Security: a rule over paths
// alone let `cat README.md` approve `awk 'BEGIN{system(…)}' README.md` and `sh README.md`, which
// read the same file and do anything; execute over a folder is never allowed unbound.
import { OperationError } from '../core/operation-error.js';
import { isKnownFileTool, PATH_KEYS } from '../policy/extract/tools.js';
import type { Extraction, Rule, ToolCall } from '../policy/types.js';

/** Glob syntax in a literal path would widen the rule (`/a/[x].txt` would not even match itself). */
function literalGlob(path: string): string {
  return path.replace(/[\\*?[\]{}()!+@]/g, '\\$&');
}

export function proposeAlwaysRule(input: { id: string; call: ToolCall; extraction: Extraction; argsHash: string; operator: string }): Rule {
  const { call, extraction: x } = input;
  // An allow rule covers a call only when it names every operation; with no operations it would
  // never match, and with no paths and hosts it would allow those operations everywhere.
  if (x.evasive) {
    throw new OperationError('invalid', `Approval ${input.id} cannot become a rule: its command is evasive (${x.evasiveReasons.join('; ') || 'static analysis cannot see through it'}), and rules never allow evasive calls. Approve it once or for this session instead.`);
  }
  if (x.operations.length === 0) {
    throw new OperationError('invalid', `Approval ${input.id} cannot become a rule: no operations were extracted from ${call.tool}'s arguments. Approve it once or for this session instead.`);
  }
  if (x.paths.length === 0 && x.hosts.length === 0) {
    throw new OperationError('invalid', `Approval ${input.id} cannot become a rule: it touches no path or host, so the rule would allow ${x.operations.join(', ')} everywhere. Approve it once or for this session instead.`);
  }
  const tool = call.tool.replace(/[^A-Za-z0-9._:-]/g, '-').slice(0, 80);
  return {
    ...bindingOf(call, x),
    name: `approved.${tool}.${input.argsHash.slice(0, 12)}`,
    description: `Allows what ${call.tool} did in approval ${input.id}, approved by ${input.operator}.`,
    source: 'user',
    origin: `approval ${input.id}`,
    actions: [...new Set(x.operations)],
    block_paths: [...new Set(x.paths)].map(literalGlob),
    block_except: [],
    block_hosts: [...new Set(x.hosts)],
    severity: 'info',
    priority: 100,
    message: `Allowed by a rule ${input.operator} created from approval ${input.id}.`,
    decision: 'allow',
    locked: false,
    enabled: true,
  };
}

/**
 * A shell command is bound exactly (its spelling is what was read and judged); a file tool
 * Gatehouse knows by its path arguments (reading the same file at another offset is the same
 * approval); any other tool by all of its arguments. A plugin's `deploy {path, script}` bound by
 * its path alone allowed every other script for that path.
 */
function bindingOf(call: ToolCall, x: Extraction): Pick<Rule, 'tools' | 'commands' | 'arguments'> {
  if (x.command !== '') return { tools: [call.tool], commands: [x.command] };
  const args = call.arguments ?? {};
  const pathArgs = isKnownFileTool(call.tool) ? Object.entries(args).filter(([k]) => PATH_KEYS.has(k)) : [];
  return { tools: [call.tool], arguments: structuredClone(Object.fromEntries(pathArgs.length > 0 ? pathArgs : Object.entries(args))) };
}
