// Editing GATEHOUSE_HOME/policy.yaml from the console: the Rules view saves the whole text, an
// `always` approval appends one rule. Both are validated with the same loader the store uses
// before anything is written, so a save can never leave a broken file behind.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { parseDocument, stringify, YAMLSeq } from 'yaml';
import { tooDeepMessage, yamlTooDeep } from '../yaml-nesting.js';
import type { PolicyView, ProposedRuleView } from '../../shared/contract.js';
import type { PolicyStore } from './rules/store.js';
import type { Rule } from './types.js';

export const POLICY_TEMPLATE = `# Gatehouse policy: your rules, on top of the locked built-in ones.
# Each rule: name, actions, block_paths / block_except / block_hosts, decision (deny, ask, allow, log);
# allow rules may be bound to tools, exact commands or exact arguments.
# Optional examples are checked when the file loads; a failing example rejects its rule.
version: 1
rules: []
`;

export function readPolicyText(file: string): string {
  return existsSync(file) ? readFileSync(file, 'utf8') : POLICY_TEMPLATE;
}

export function writePolicyText(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, text, { mode: 0o600 });
  renameSync(tmp, file);
}

/** The YAML of one user rule, as it is appended to policy.yaml. */
function ruleObject(rule: Rule): Record<string, unknown> {
  return {
    name: rule.name,
    description: rule.description,
    // The binding first: it is what an "always" rule allows (this tool, exactly this command).
    ...(rule.tools ? { tools: rule.tools } : {}),
    ...(rule.commands ? { commands: rule.commands } : {}),
    ...(rule.arguments ? { arguments: rule.arguments } : {}),
    actions: rule.actions,
    ...(rule.block_paths.length ? { block_paths: rule.block_paths } : {}),
    ...(rule.block_hosts.length ? { block_hosts: rule.block_hosts } : {}),
    severity: rule.severity,
    priority: rule.priority,
    message: rule.message,
    decision: rule.decision,
  };
}

export function proposedRuleView(rule: Rule): ProposedRuleView {
  return {
    name: rule.name,
    description: rule.description,
    actions: rule.actions,
    block_paths: rule.block_paths,
    block_hosts: rule.block_hosts,
    decision: rule.decision,
    message: rule.message,
    yaml: stringify([ruleObject(rule)]),
  };
}

/** The policy text with `rule` appended to its rules (comments and layout kept). */
export function appendRule(text: string, rule: Rule): string {
  // A deeply nested file can crash the process in the parser (yaml-nesting.ts): never parsed.
  if (yamlTooDeep(text)) throw new Error(`${tooDeepMessage('policy.yaml')}; fix it in the Rules view before adding rules to it.`);
  const doc = parseDocument(text);
  if (doc.errors.length > 0) throw new Error(`policy.yaml has YAML errors (${doc.errors[0]!.message}); fix it in the Rules view before adding rules to it.`);
  if (doc.contents === null) return stringify({ version: 1, rules: [ruleObject(rule)] });
  let rules = doc.get('rules');
  if (!(rules instanceof YAMLSeq)) {
    doc.set('rules', doc.createNode([]));
    rules = doc.get('rules');
  }
  const seq = rules as YAMLSeq;
  seq.flow = false;
  seq.add(doc.createNode(ruleObject(rule)));
  return doc.toString();
}

export function policyView(store: PolicyStore, file: string): PolicyView {
  const s = store.state;
  return {
    file,
    text: readPolicyText(file),
    version: s.version,
    error: s.error,
    problems: [...s.problems],
    examples: [...s.examples],
    rules: s.rules.rules.map(({ rule: r }) => ({
      name: r.name,
      description: r.description,
      source: r.source,
      origin: r.origin,
      actions: r.actions,
      decision: r.decision,
      severity: r.severity,
      priority: r.priority,
      locked: r.locked,
      enabled: r.enabled,
      hits: store.hitCount(r.name),
      paths: r.block_paths,
      except: r.block_except,
      hosts: r.block_hosts,
      message: r.message,
    })),
  };
}
