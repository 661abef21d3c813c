// The host side of a WebAssembly plugin's granted functions. Each call the guest makes is
// checked when it is made (linking a function at enable time is not a blank cheque):
//  - read_file / write_file: the path, with links resolved, must lie under a path the manifest
//    grants for that operation; then the host's policy judges it as it judges an agent's read or
//    write (so a locked rule on ~/.ssh denies it even inside a grant);
//  - http_request: the host must be declared in permissions.hosts; every address it resolves to
//    must be public (the SSRF ranges of main/policy/network.ts), and the connection goes to the
//    address that was checked, so a DNS answer that changes in between (rebinding) is not used;
//    then the policy judges it as a network operation.
// Every host call is an audit event, `wasm.host-call`, with the function, a short summary of
// its argument and the decision with its reason.
import { closeSync, constants as fsConstants, fstatSync, openSync, readFileSync, realpathSync, statSync, writeSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { blockedCategory, compileHostPattern, normalizeHost, parseIpLiteral, resolveHosts, type Resolver } from '../../policy/network.js';
import type { PolicyResult } from '../../policy/rules/engine.js';
import type { Extraction, ToolCall } from '../../policy/types.js';
import type { HostCallReply, HostCallRequest } from './extism-kernel.js';
import type { WasiPreopen } from './wasi-session.js';
import { grantsToBind, profileFromManifest, secretPaths, throughWritable } from '../sandbox.js';

/** The host's policy (PolicyStore fits). */
export interface HostPolicy {
  evaluateAsync(x: Extraction, call: ToolCall | null): Promise<PolicyResult>;
}

export interface HostFunctionContext {
  plugin: string;
  tool: string;
  /**
   * The folder the plugin runs from: its verified copy for an agent's call, the folder itself for
   * an author's test run. Relative grants and paths are its files.
   */
  dir: string;
  /**
   * The folder the plugin was reviewed in, when `dir` is a verified copy of it. A grant written
   * inside it is the copy's (as profileFromManifest maps a process plugin's), a path into it is
   * refused (it can have changed since the copy was checked), and a path inside the copy is
   * judged by the policy as the plugin's own file there (the copy lies in Gatehouse's own folder).
   */
  reviewedDir?: string;
  actor: string;
  callId?: string;
  permissions: { read: readonly string[]; write: readonly string[]; hosts: readonly string[] };
  maxReadBytes: number;
  policy?: HostPolicy;
  resolver?: Resolver;
  record(type: string, actor: string, payload: Record<string, unknown>): void;
  home?: string;
}

const SUMMARY_CHARS = 200;
const HTTP_TIMEOUT_MS = 10_000;

export async function answerHostCall(ctx: HostFunctionContext, req: HostCallRequest): Promise<HostCallReply> {
  let reply: HostCallReply;
  let summary = req.arg.slice(0, SUMMARY_CHARS);
  let decider: string;
  try {
    const r = req.fn === 'http_request' ? await http(ctx, req) : await file(ctx, req);
    reply = r.reply;
    summary = r.summary;
    decider = r.decider;
  } catch (err) {
    reply = { ok: false, error: `${req.fn} failed: ${(err as Error).message}` };
    decider = 'error';
  }
  ctx.record('wasm.host-call', ctx.actor, {
    ...(ctx.callId ? { call: ctx.callId } : {}),
    plugin: ctx.plugin,
    tool: ctx.tool,
    function: req.fn,
    argument: summary,
    decision: reply.ok ? 'allow' : 'deny',
    decider,
    reason: reply.ok ? null : (reply.error ?? null),
    bytes: reply.data?.length ?? req.data?.length ?? 0,
  });
  return reply;
}

type Judged = { reply: HostCallReply; summary: string; decider: string };

function expand(p: string, home: string): string {
  if (p === '~') return home;
  if (p.startsWith('~/')) return join(home, p.slice(2));
  return p;
}

/** A path with every existing link resolved (the missing tail, for a new file, kept as written). */
function realish(p: string): string {
  let head = resolve(p);
  const tail: string[] = [];
  for (;;) {
    try {
      return join(realpathSync(head), ...tail);
    } catch {
      const parent = dirname(head);
      if (parent === head) return resolve(p);
      tail.unshift(head.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)));
      head = parent;
    }
  }
}

function under(root: string, p: string): boolean {
  const rel = relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * The manifest's grants for an operation as real absolute paths (`~` and relative ones resolved,
 * one written inside the reviewed folder made the copy's): the process sandbox's own expansion.
 */
function grantRoots(ctx: HostFunctionContext, op: 'read' | 'write'): string[] {
  const permissions = { read: [...ctx.permissions.read], write: [...ctx.permissions.write], hosts: [], env: [] };
  const profile = profileFromManifest({ permissions }, ctx.dir, { home: ctx.home ?? homedir(), ...(ctx.reviewedDir !== undefined ? { reviewedDir: ctx.reviewedDir } : {}) });
  // As the process sandbox binds them (sandbox.ts): a write grant inside another adds nothing,
  // and a grant reached through a link in a writable grant (which the module can make with WASI's
  // path_symlink) leads wherever the module chose, not where the operator reviewed.
  const write = grantsToBind([], profile.write).write;
  const writable = write.map(realish);
  // A write grant can be read too (the process sandbox binds it so).
  return (op === 'read' ? [...profile.read, ...write] : write).filter((p) => !throughWritable(p, writable)).map(realish);
}

/** The reviewed folder, lexical and real, when the plugin runs from a copy of it (else null). */
function reviewedOf(ctx: HostFunctionContext): { lexical: string; real: string; copy: string } | null {
  if (ctx.reviewedDir === undefined || resolve(ctx.reviewedDir) === resolve(ctx.dir)) return null;
  return { lexical: resolve(ctx.reviewedDir), real: realish(ctx.reviewedDir), copy: realish(ctx.dir) };
}

/**
 * Why `asked` (as written, resolved) or `real` (its links followed) is refused because it lies in
 * the reviewed folder: the plugin runs from the copy, and the original can have changed since the
 * copy was checked (a link to it an agent made in a granted folder, a grant holding it, its own
 * absolute path). Null when it does not.
 */
function inReviewed(ctx: HostFunctionContext, asked: string, real: string): string | null {
  const r = reviewedOf(ctx);
  if (!r || !(under(r.lexical, asked) || under(r.real, real) || under(r.lexical, real))) return null;
  return `it is in ${r.lexical}, the folder this plugin was reviewed in; it runs from a verified copy of it, and its own files are named relative to it`;
}

/** The path the policy judges: a path in the copy is the plugin's own file in the folder it was reviewed in. */
function judgedPath(ctx: HostFunctionContext, p: string): string {
  const r = reviewedOf(ctx);
  return r && under(r.copy, p) ? join(r.lexical, relative(r.copy, p)) : p;
}

/**
 * The folders a WASI module's call may open: every granted folder that exists, writable when
 * `write` grants it, each judged by the policy at the start of the call as the host functions
 * judge one path (a locked rule on a folder keeps it out even when the manifest grants it), and
 * each recorded as a `wasm.host-call` event (function `preopen`). A granted file is not
 * preopened (WASI opens files through folders; grant its folder instead).
 */
export async function wasiPreopens(ctx: HostFunctionContext): Promise<WasiPreopen[]> {
  const home = ctx.home ?? homedir();
  const writable = new Set(grantRoots(ctx, 'write'));
  const out: WasiPreopen[] = [];
  for (const path of [...new Set([...grantRoots(ctx, 'read'), ...writable])]) {
    const op = writable.has(path) ? 'write' : 'read';
    let isDir: boolean;
    try {
      isDir = statSync(path).isDirectory();
    } catch {
      isDir = false;
    }
    // node:wasi resolves paths inside the folder by itself, with no per-file policy check: a
    // folder holding the home's secrets (a grant of "~") would hand over ~/.ssh. Refused whole.
    const secret = secretPaths(home).find((x) => under(path, x) || under(x, path));
    // A granted folder that leads into the reviewed one (made a link to it after the check) is
    // not opened; one that holds it (a project) is, and the WASI process hides it (WasmHostClient).
    const original = isDir ? inReviewed(ctx, path, path) : null;
    const denied = !isDir ? null : secret ? `it holds or is ${secret}, which a WebAssembly module never opens; grant a narrower folder` : original ?? await judge(ctx, 'preopen', { operations: [op], paths: [judgedPath(ctx, path)], hosts: [], command: '', content: '', evasive: false, evasiveReasons: [] }, { path: judgedPath(ctx, path) });
    const reason = !isDir ? 'not an existing folder (WASI opens files through a preopened folder: grant the folder)' : denied;
    ctx.record('wasm.host-call', ctx.actor, {
      ...(ctx.callId ? { call: ctx.callId } : {}),
      plugin: ctx.plugin,
      tool: ctx.tool,
      function: 'preopen',
      argument: `${op} ${path}`.slice(0, SUMMARY_CHARS),
      decision: reason ? 'deny' : 'allow',
      decider: denied && !secret && !original ? 'policy' : 'grant',
      reason,
      bytes: 0,
    });
    if (!reason) out.push({ path, writable: op === 'write' });
  }
  return out;
}

async function file(ctx: HostFunctionContext, req: HostCallRequest): Promise<Judged> {
  const home = ctx.home ?? homedir();
  const op = req.fn === 'write_file' ? 'write' : 'read';
  const asked = expand(req.arg, home);
  if (asked === '' || asked.includes('\0')) return { reply: { ok: false, error: `${req.fn}: the path is empty or holds a NUL byte` }, summary: JSON.stringify(req.arg.slice(0, SUMMARY_CHARS)), decider: 'grant' };
  // Relative: the plugin's own files, the copy's when it runs from one.
  const written = resolve(ctx.dir, asked);
  const target = realish(written);
  const summary = target.slice(0, SUMMARY_CHARS);
  const original = inReviewed(ctx, written, target);
  if (original) return { reply: { ok: false, error: `${req.fn} ${target} was denied: ${original}` }, summary, decider: 'grant' };
  const grants = grantRoots(ctx, op);
  if (!grants.some((g) => under(g, target))) {
    return { reply: { ok: false, error: `${req.fn} ${target} was denied: it is not under a path the manifest grants for ${op} (${grants.join(', ') || 'none'})` }, summary, decider: 'grant' };
  }
  const judged = judgedPath(ctx, target);
  const denied = await judge(ctx, req.fn, { operations: [op], paths: [judged], hosts: [], command: '', content: op === 'write' ? Buffer.from(req.data ?? []).toString('utf8').slice(0, 4096) : '', evasive: false, evasiveReasons: [] }, { path: judged });
  if (denied) return { reply: { ok: false, error: `${req.fn} ${target} was denied by policy: ${denied}` }, summary, decider: 'policy' };
  // O_NOFOLLOW: the path was resolved above; a link planted at it since is refused, not followed.
  if (op === 'read') {
    const fd = openSync(target, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW);
    try {
      const st = fstatSync(fd);
      if (!st.isFile()) return { reply: { ok: false, error: `${req.fn} ${target}: not a regular file` }, summary, decider: 'grant' };
      if (st.size > ctx.maxReadBytes) return { reply: { ok: false, error: `${req.fn} ${target}: ${st.size} bytes is more than the call's memory cap allows` }, summary, decider: 'grant' };
      return { reply: { ok: true, data: new Uint8Array(readFileSync(fd)) }, summary, decider: 'policy' };
    } finally {
      closeSync(fd);
    }
  }
  const fd = openSync(target, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_TRUNC | fsConstants.O_NOFOLLOW, 0o644);
  try {
    if (!fstatSync(fd).isFile()) return { reply: { ok: false, error: `${req.fn} ${target}: not a regular file` }, summary, decider: 'grant' };
    writeSync(fd, req.data ?? new Uint8Array(0));
  } finally {
    closeSync(fd);
  }
  return { reply: { ok: true }, summary, decider: 'policy' };
}

/** The policy's decision as the reason for a deny, or null when it does not deny. */
async function judge(ctx: HostFunctionContext, fn: string, x: Extraction, args: Record<string, unknown>): Promise<string | null> {
  if (!ctx.policy) return null;
  const call: ToolCall = {
    id: `${ctx.callId ?? 'wasm'}/${fn}`,
    agent: ctx.actor.replace(/^[a-z]+:/, ''),
    session: `wasm/${ctx.plugin}`,
    tool: `${ctx.plugin}.${fn}`,
    arguments: args,
    // The folder the operator reviewed, as for the paths judged: decisions do not depend on where the copy lives.
    cwd: reviewedOf(ctx)?.lexical ?? ctx.dir,
    source: 'api',
    receivedAt: Date.now(),
  };
  const r = await ctx.policy.evaluateAsync(x, call);
  // The manifest's grant is the operator's approval of this scope: a rule's deny still wins
  // (locked credentials, SSRF), an undecided call inside the grant runs.
  return r.decision === 'deny' ? r.reason : null;
}

async function http(ctx: HostFunctionContext, req: HostCallRequest): Promise<Judged> {
  let spec: { url?: unknown; method?: unknown; headers?: unknown };
  try {
    spec = JSON.parse(req.arg) as typeof spec;
  } catch {
    return { reply: { ok: false, error: 'http_request: the request is not JSON ({"url": …, "method": …, "headers": {…}})' }, summary: req.arg.slice(0, SUMMARY_CHARS), decider: 'grant' };
  }
  const url = typeof spec.url === 'string' ? spec.url : '';
  const method = typeof spec.method === 'string' ? spec.method.toUpperCase() : 'GET';
  const summary = `${method} ${url}`.slice(0, SUMMARY_CHARS);
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { reply: { ok: false, error: `http_request: ${JSON.stringify(url.slice(0, 200))} is not a URL` }, summary, decider: 'grant' };
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return { reply: { ok: false, error: `http_request: only http and https URLs are allowed, not ${u.protocol}` }, summary, decider: 'grant' };
  if (u.username || u.password) return { reply: { ok: false, error: 'http_request: URLs with credentials are refused' }, summary, decider: 'grant' };
  const host = normalizeHost(u.hostname.replace(/^\[|\]$/g, ''));
  const declared = compileHostPattern(ctx.permissions.hosts);
  if (!declared.match(host, undefined) && !declared.match(`${host}:${u.port || (u.protocol === 'https:' ? '443' : '80')}`, undefined)) {
    return { reply: { ok: false, error: `http_request to ${host} was denied: it is not a host the manifest declares in permissions.hosts (${ctx.permissions.hosts.join(', ')})` }, summary, decider: 'grant' };
  }
  const literal = parseIpLiteral(host);
  let addresses: string[];
  if (literal) addresses = [host];
  else {
    const res = (await resolveHosts([host], ctx.resolver)).get(host);
    if (!res || 'error' in res) return { reply: { ok: false, error: `http_request to ${host} was denied: it does not resolve (${res && 'error' in res ? res.error : 'no answer'})` }, summary, decider: 'network' };
    addresses = res.addresses;
  }
  for (const a of addresses) {
    const ip = parseIpLiteral(a);
    const blocked = ip ? blockedCategory(ip) : { category: 'unspecified', cidr: '?' };
    if (blocked) return { reply: { ok: false, error: `http_request to ${host} was denied: it reaches ${a}, a ${blocked.category} address (${blocked.cidr}); plugins may reach public addresses only` }, summary, decider: 'network' };
  }
  const denied = await judge(ctx, 'http_request', { operations: ['network'], paths: [], hosts: [host], command: '', content: '', evasive: false, evasiveReasons: [] }, { url });
  if (denied) return { reply: { ok: false, error: `http_request to ${host} was denied by policy: ${denied}` }, summary, decider: 'policy' };
  const pinned = addresses[0]!;
  const headers = spec.headers && typeof spec.headers === 'object' ? (spec.headers as Record<string, string>) : {};
  const { status, body } = await new Promise<{ status: number; body: Buffer }>((resolveP, reject) => {
    const send = u.protocol === 'https:' ? httpsRequest : httpRequest;
    const r = send(
      u,
      {
        method,
        headers,
        timeout: HTTP_TIMEOUT_MS,
        // The connection goes to the address that was checked: no second DNS answer is used.
        lookup: (_h: string, opts: { all?: boolean }, cb: (...a: unknown[]) => void) => (opts.all ? cb(null, [{ address: pinned, family: pinned.includes(':') ? 6 : 4 }]) : cb(null, pinned, pinned.includes(':') ? 6 : 4)),
      } as never,
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > ctx.maxReadBytes) {
            r.destroy(new Error('the response is larger than the call\'s memory cap'));
            return;
          }
          chunks.push(c);
        });
        res.on('end', () => resolveP({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    r.on('timeout', () => r.destroy(new Error(`no answer within ${HTTP_TIMEOUT_MS / 1000} s`)));
    r.on('error', reject);
    if (req.data?.length) r.write(req.data);
    r.end();
  });
  return { reply: { ok: true, status, data: new Uint8Array(body) }, summary, decider: 'policy' };
}
