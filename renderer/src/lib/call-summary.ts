// What an operator reads first about a waiting call: how risky it is (for the row's colour and
// the order of the inbox), one line saying what it would do, the agent's own description of it,
// and any base64 in the command decoded, since an evasive payload read encoded says nothing.
// Pure functions of the item: the list sorts thousands of rows with them on every change.
import type { ApprovalItemView } from '../../../shared/contract.ts';

/** Highest first: the inbox sorts by this, then by age (oldest first). */
export type RiskLevel = 'evasive' | 'delete' | 'network' | 'write' | 'execute' | 'read';

const RANK: Record<RiskLevel, number> = { evasive: 5, delete: 4, network: 3, write: 2, execute: 1, read: 0 };

export const RISK_LABEL: Record<RiskLevel, string> = {
  evasive: 'evasive: analysis cannot see what it runs',
  delete: 'deletes files',
  network: 'reaches the network',
  write: 'writes files',
  execute: 'runs a program',
  read: 'reads only',
};

export function riskOf(item: ApprovalItemView): RiskLevel {
  const x = item.extraction;
  if (x.evasive) return 'evasive';
  const ops = new Set(x.operations);
  if (ops.has('delete') || ops.has('move')) return 'delete';
  if (ops.has('network') || x.hosts.length > 0) return 'network';
  if (ops.has('write') || ops.has('copy')) return 'write';
  if (ops.has('execute')) return 'execute';
  return 'read';
}

export function riskRank(item: ApprovalItemView): number {
  return RANK[riskOf(item)];
}

/** Riskiest first; among equals the oldest first (it has waited longest and expires soonest). */
export function byRiskThenAge(a: ApprovalItemView, b: ApprovalItemView): number {
  return riskRank(b) - riskRank(a) || a.requestedAt - b.requestedAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

function str(v: unknown): string | null {
  return typeof v === 'string' && v.length > 0 ? v : null;
}

/** The agent's own words for the call (Claude Code's Bash `description`), if it gave any. */
export function agentDescription(item: ApprovalItemView): string | null {
  const a = item.call.arguments ?? {};
  return str(a['description']);
}

/** The file a Write, Edit or MultiEdit call changes, or null for other tools. */
export function editedFile(item: ApprovalItemView): string | null {
  if (!isEditTool(item.call.tool)) return null;
  const a = item.call.arguments ?? {};
  return str(a['file_path']) ?? str(a['path']);
}

export function isEditTool(tool: string): boolean {
  return tool === 'Write' || tool === 'Edit' || tool === 'MultiEdit';
}

const MAX_SUMMARY = 160;

function clip(s: string): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > MAX_SUMMARY ? `${one.slice(0, MAX_SUMMARY - 1)}…` : one;
}

/** One line: the command, the file or the host it is about, else the arguments in brief. */
export function oneLineSummary(item: ApprovalItemView): string {
  const x = item.extraction;
  const file = editedFile(item);
  if (file) return clip(`${item.call.tool === 'Write' ? 'write' : 'edit'} ${file}`);
  if (x.command) return clip(x.command);
  const a = item.call.arguments ?? {};
  const url = str(a['url']);
  if (url) return clip(`fetch ${url}`);
  if (x.paths.length > 0) return clip(`${x.operations.join('/') || 'touch'} ${x.paths[0]}${x.paths.length > 1 ? ` and ${x.paths.length - 1} more` : ''}`);
  if (x.hosts.length > 0) return clip(`${x.operations.join('/') || 'reach'} ${x.hosts.join(', ')}`);
  const json = JSON.stringify(item.call.arguments ?? {});
  return clip(json === '{}' ? '(no arguments)' : json);
}

export interface DecodedPayload {
  /** The base64 text as it appears in the command. */
  raw: string;
  /** What it decodes to (UTF-8; undecodable bytes shown as U+FFFD). */
  decoded: string;
}

// Eight characters (six bytes) at least: `cm0gLXJmIH4=` is `rm -rf ~`. Shorter runs are ordinary words.
const B64 = /[A-Za-z0-9+/]{8,}={0,2}|[A-Za-z0-9_-]{16,}={0,2}/g;

/**
 * Base64 runs in the text that decode to mostly printable text: an `echo cm0gLXJmIH4= | base64 -d | sh`
 * is shown as `rm -rf ~` beside what the agent sent. Plain words (no digits or case mix) are skipped.
 */
export function decodeBase64Payloads(text: string, limit = 5): DecodedPayload[] {
  const out: DecodedPayload[] = [];
  for (const m of text.matchAll(B64)) {
    const raw = m[0];
    if (!/[0-9+/=]/.test(raw) && !(/[a-z]/.test(raw) && /[A-Z]/.test(raw))) continue;
    const decoded = tryDecode(raw);
    if (decoded === null) continue;
    out.push({ raw, decoded });
    if (out.length >= limit) break;
  }
  return out;
}

function tryDecode(raw: string): string | null {
  const norm = raw.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
  if (norm.length % 4 === 1) return null;
  let bin: string;
  try {
    bin = atob(norm + '='.repeat((4 - (norm.length % 4)) % 4));
  } catch {
    return null;
  }
  const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  if (text.trim().length < 4) return null;
  // Text an agent would hide is printable: a run that decodes to noise is not a payload.
  let printable = 0;
  for (const ch of text) if (/[\p{L}\p{N}\p{P}\p{S}\s]/u.test(ch) && ch !== '\uFFFD') printable++;
  return printable / [...text].length >= 0.9 ? text : null;
}

/** Paths past this many are collapsed behind a count. */
export const PATHS_SHOWN = 10;

function inside(path: string, dir: string): boolean {
  const d = dir.endsWith('/') ? dir : `${dir}/`;
  return path === dir || path.startsWith(d);
}

/**
 * Why approving this call in a batch deserves a second look: it deletes, writes outside its
 * project (the call's working folder), reaches the network, or cannot be seen through. Empty for
 * calls a batch may approve at once.
 */
export function batchConcerns(item: ApprovalItemView): string[] {
  const x = item.extraction;
  const ops = new Set(x.operations);
  const out: string[] = [];
  if (x.evasive) out.push('evasive');
  if (ops.has('delete') || ops.has('move')) out.push('deletes');
  if ((ops.has('write') || ops.has('copy') || ops.has('move') || ops.has('delete')) && x.paths.some((p) => !inside(p, item.call.cwd))) out.push('writes outside the project');
  if (ops.has('network') || x.hosts.length > 0) out.push('reaches the network');
  return out;
}

/**
 * Whether approving this call should stop and ask first: the one rule "Approve all" and the `a`
 * key share, so a key pressed by habit never approves what a batch would have stopped on.
 */
export function needsSecondLook(item: ApprovalItemView): boolean {
  return batchConcerns(item).length > 0;
}
