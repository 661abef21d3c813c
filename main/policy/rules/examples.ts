// Rule examples: small call descriptions checked when the policy loads, so a rule that does not
// match what its author meant is rejected before it guards (or fails to guard) anything.
//
// Forms (one per example):
//   "write ~/work/prod/app.yaml"            op, then paths (or hosts, for network)
//   "read,write ~/a ~/b"                     several ops
//   { op: write, path: ~/x }                 object form; path/host may be lists, op too
//   { op: network, host: 10.0.0.7 }
//   { command: "rm -rf /tmp/x" }             needs the extractor (injected); tool defaults to Bash
//   { tool: Write, arguments: { file_path: /tmp/x } }
import { resolve } from 'node:path';
import { OPERATIONS, type Extraction, type Operation, type ToolCall } from '../types.js';

export type ExtractFn = (call: ToolCall) => Extraction;

export interface ParsedExample {
  /** Readable text of the example, for problems and the rules view. */
  text: string;
  extraction: Extraction;
  /** The call a `{ command }` / `{ tool, arguments }` example stands for (rules bound to a tool need it). */
  call?: ToolCall;
}

const OPS = new Set<string>(OPERATIONS);

function emptyExtraction(): Extraction {
  return { operations: [], paths: [], hosts: [], command: '', content: '', evasive: false, evasiveReasons: [] };
}

function expandPath(p: string, home: string): string | null {
  const t = p.trim();
  if (t === '~') return home;
  if (t.startsWith('~/')) return resolve(home, t.slice(2));
  if (t.startsWith('/')) return resolve(t);
  return null;
}

const list = (v: unknown): unknown[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** Turns one example into an extraction, or returns a problem sentence. */
export function parseExample(raw: unknown, home: string, extract?: ExtractFn): ParsedExample | string {
  if (typeof raw === 'string') return parseStringExample(raw, home);
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return 'an example is a string like "write ~/x" or a map like { op: write, path: ~/x }';
  const o = raw as Record<string, unknown>;
  const text = compactText(o);
  const known = new Set(['op', 'path', 'host', 'command', 'tool', 'arguments', 'evasive']);
  const unknown = Object.keys(o).filter((k) => !known.has(k));
  if (unknown.length > 0) return `example ${text}: unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `"${k}"`).join(', ')} (use op, path, host, command, tool, arguments, evasive)`;
  if (o.command !== undefined || o.tool !== undefined || o.arguments !== undefined) {
    if (o.op !== undefined || o.path !== undefined || o.host !== undefined) return `example ${text}: use either command/tool/arguments or op/path/host, not both`;
    if (!extract) return `example ${text}: command and tool examples need the extractor, which is not available here`;
    if (o.command !== undefined && typeof o.command !== 'string') return `example ${text}: command must be a string`;
    if (o.tool !== undefined && typeof o.tool !== 'string') return `example ${text}: tool must be a string`;
    if (o.arguments !== undefined && (o.arguments === null || typeof o.arguments !== 'object' || Array.isArray(o.arguments))) return `example ${text}: arguments must be a map`;
    const call: ToolCall = {
      id: 'policy-example',
      agent: 'policy-example',
      session: 'policy-example',
      tool: (o.tool as string | undefined) ?? 'Bash',
      arguments: (o.arguments as Record<string, unknown> | undefined) ?? { command: o.command },
      cwd: home,
      source: 'console',
      receivedAt: 0,
    };
    try {
      return { text, extraction: extract(call), call };
    } catch (err) {
      return `example ${text}: the extractor failed: ${(err as Error).message}`;
    }
  }
  const x = emptyExtraction();
  for (const op of list(o.op)) {
    if (typeof op !== 'string' || !OPS.has(op)) return `example ${text}: unknown operation ${JSON.stringify(op)} (one of ${OPERATIONS.join(', ')})`;
    x.operations.push(op as Operation);
  }
  if (x.operations.length === 0) return `example ${text}: needs an op`;
  for (const p of list(o.path)) {
    const abs = typeof p === 'string' ? expandPath(p, home) : null;
    if (abs === null) return `example ${text}: path ${JSON.stringify(p)} must start with / or ~`;
    x.paths.push(abs);
  }
  for (const h of list(o.host)) {
    if (typeof h !== 'string' || h.trim() === '') return `example ${text}: host must be a string`;
    x.hosts.push(h.trim().toLowerCase());
  }
  if (o.evasive !== undefined) {
    if (typeof o.evasive !== 'boolean') return `example ${text}: evasive must be true or false`;
    x.evasive = o.evasive;
    if (o.evasive) x.evasiveReasons.push('example marked evasive');
  }
  return { text, extraction: x };
}

function parseStringExample(raw: string, home: string): ParsedExample | string {
  const text = JSON.stringify(raw);
  const [opsWord, ...targets] = raw.trim().split(/\s+/);
  const x = emptyExtraction();
  for (const op of (opsWord ?? '').split(',')) {
    if (!OPS.has(op)) return `example ${text}: starts with an operation (${OPERATIONS.join(', ')}), not ${JSON.stringify(op)}`;
    x.operations.push(op as Operation);
  }
  for (const t of targets) {
    const abs = expandPath(t, home);
    if (abs !== null) x.paths.push(abs);
    else if (x.operations.includes('network')) x.hosts.push(t.toLowerCase());
    else return `example ${text}: path ${JSON.stringify(t)} must start with / or ~`;
  }
  return { text, extraction: x };
}

function compactText(o: Record<string, unknown>): string {
  const parts = Object.entries(o).map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`);
  return `{ ${parts.join(', ')} }`;
}
