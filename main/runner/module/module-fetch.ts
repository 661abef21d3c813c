// The host side of a module plugin's `fetch`. The child has no network of its own (its own
// network namespace under bwrap); every request comes here over the line protocol and goes out
// only when:
//  - the URL is http(s), without credentials, and lies under one of the manifest's
//    `declaredEndpoints` (same scheme, host and port, and the endpoint's path as a prefix);
//  - every address the host resolves to is public (the SSRF ranges of main/policy/network.ts),
//    unless the operator listed that exact host in `allowPrivateHosts` (a local test server or an
//    intranet API the operator means the plugin to reach); the connection then goes to the
//    address that was checked, so a second DNS answer (rebinding) is never used;
//  - the host's policy does not deny it as a network operation.
// Each request, allowed or refused, is recorded (`module.fetch`), and a refusal names the host.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { blockedCategory, normalizeHost, parseIpLiteral, resolveHosts, type Resolver } from '../../policy/network.js';
import type { Extraction, ToolCall } from '../../policy/types.js';
import type { HostPolicy } from '../wasm/host-functions.js';
import type { FetchInit } from './protocol.js';

export interface FetchContext {
  plugin: string;
  declaredEndpoints: readonly string[];
  /** Hosts (as written in the URL) the operator allows even though they resolve to private addresses. */
  allowPrivateHosts?: readonly string[] | (() => readonly string[]);
  policy?: HostPolicy;
  resolver?: Resolver;
  actor: string;
  record(type: string, actor: string, payload: Record<string, unknown>): void;
  maxBytes?: number;
  timeoutMs?: number;
}

export type FetchReply = { ok: true; status: number; statusText: string; headers: Record<string, string>; body: string } | { ok: false; error: string };

const DEFAULT_MAX = 4 * 1024 * 1024;
/** The built-in rule that denies private, loopback and metadata addresses (main/policy/rules/builtin). */
const PRIVATE_RULE = 'builtin.network.private';

function portOf(u: URL): string {
  return u.port || (u.protocol === 'https:' ? '443' : '80');
}

/** Whether `u` lies under a declared endpoint. */
export function underEndpoint(u: URL, endpoints: readonly string[]): boolean {
  return endpoints.some((e) => {
    let d: URL;
    try {
      d = new URL(e);
    } catch {
      return false;
    }
    if (d.protocol !== u.protocol || normalizeHost(d.hostname) !== normalizeHost(u.hostname) || portOf(d) !== portOf(u)) return false;
    const base = d.pathname.endsWith('/') ? d.pathname : `${d.pathname}/`;
    return d.pathname === '/' || u.pathname === d.pathname || u.pathname.startsWith(base);
  });
}

export async function moduleFetch(ctx: FetchContext, call: { callId: string | null; tool: string }, url: string, init: FetchInit): Promise<FetchReply> {
  let reply: FetchReply;
  let host = '';
  let decider: string;
  try {
    const r = await judgeAndSend(ctx, call, url, init);
    reply = r.reply;
    host = r.host;
    decider = r.decider;
  } catch (err) {
    reply = { ok: false, error: `fetch ${url.slice(0, 200)} failed: ${(err as Error).message}` };
    decider = 'error';
  }
  ctx.record('module.fetch', ctx.actor, {
    ...(call.callId ? { call: call.callId } : {}),
    plugin: ctx.plugin,
    tool: call.tool,
    method: init.method,
    url: url.slice(0, 200),
    host,
    decision: reply.ok ? 'allow' : 'deny',
    decider,
    reason: reply.ok ? null : reply.error,
  });
  return reply;
}

async function judgeAndSend(ctx: FetchContext, call: { callId: string | null; tool: string }, url: string, init: FetchInit): Promise<{ reply: FetchReply; host: string; decider: string }> {
  const deny = (error: string, host: string, decider: string) => ({ reply: { ok: false as const, error }, host, decider });
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return deny(`fetch: ${JSON.stringify(url.slice(0, 200))} is not a URL`, '', 'endpoint');
  }
  const host = normalizeHost(u.hostname.replace(/^\[|\]$/g, ''));
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return deny(`fetch to ${u.protocol} was refused: only http and https URLs are allowed`, host, 'endpoint');
  if (u.username || u.password) return deny(`fetch to ${host} was refused: URLs with credentials are not allowed`, host, 'endpoint');
  if (!underEndpoint(u, ctx.declaredEndpoints)) {
    return deny(`fetch to ${host} was refused: ${u.origin}${u.pathname} is not under the plugin's declaredEndpoints (${ctx.declaredEndpoints.join(', ') || 'none'})`, host, 'endpoint');
  }
  const allowed = typeof ctx.allowPrivateHosts === 'function' ? ctx.allowPrivateHosts() : (ctx.allowPrivateHosts ?? []);
  const privateOk = allowed.some((h) => normalizeHost(h) === host);
  let addresses: string[];
  if (parseIpLiteral(host)) addresses = [host];
  else {
    const res = (await resolveHosts([host], ctx.resolver)).get(host);
    if (!res || 'error' in res) return deny(`fetch to ${host} was refused: it does not resolve (${res && 'error' in res ? res.error : 'no answer'})`, host, 'network');
    addresses = res.addresses;
  }
  if (!privateOk)
    for (const a of addresses) {
      const ip = parseIpLiteral(a);
      const blocked = ip ? blockedCategory(ip) : { category: 'unspecified', cidr: '?' };
      if (blocked) return deny(`fetch to ${host} was refused: it reaches ${a}, a ${blocked.category} address (${blocked.cidr}); plugins may reach public addresses only unless the operator lists the host in allowPrivateHosts`, host, 'network');
    }
  if (ctx.policy) {
    const x: Extraction = { operations: ['network'], paths: [], hosts: [host], command: '', content: '', evasive: false, evasiveReasons: [] };
    const tc: ToolCall = { id: `${call.callId ?? 'module'}/fetch`, agent: ctx.actor.replace(/^[a-z]+:/, ''), session: `module/${ctx.plugin}`, tool: `${ctx.plugin}.fetch`, arguments: { url }, cwd: '/', source: 'api', receivedAt: Date.now() };
    const r = await ctx.policy.evaluateAsync(x, tc);
    // The operator's modulePrivateHosts entry for this exact host answers the built-in SSRF rule
    // (it exists to allow that host); any other rule's deny still wins.
    const denies = r.matched.filter((m) => m.decision === 'deny');
    const onlySsrf = privateOk && denies.length > 0 && denies.every((m) => m.rule === PRIVATE_RULE);
    if (r.decision === 'deny' && !onlySsrf) return deny(`fetch to ${host} was refused by policy: ${r.reason}`, host, 'policy');
  }
  const pinned = addresses[0]!;
  const max = ctx.maxBytes ?? DEFAULT_MAX;
  const timeout = ctx.timeoutMs ?? 10_000;
  const res = await new Promise<{ status: number; statusText: string; headers: Record<string, string>; body: Buffer }>((resolveP, reject) => {
    const send = u.protocol === 'https:' ? httpsRequest : httpRequest;
    const r = send(
      u,
      {
        method: init.method,
        headers: init.headers,
        timeout,
        // The connection goes to the address that was checked: no second DNS answer is used.
        lookup: (_h: string, opts: { all?: boolean }, cb: (...a: unknown[]) => void) => (opts.all ? cb(null, [{ address: pinned, family: pinned.includes(':') ? 6 : 4 }]) : cb(null, pinned, pinned.includes(':') ? 6 : 4)),
      } as never,
      (m) => {
        const chunks: Buffer[] = [];
        let size = 0;
        m.on('data', (c: Buffer) => {
          size += c.length;
          if (size > max) return void r.destroy(new Error(`the response is larger than ${max} bytes`));
          chunks.push(c);
        });
        m.on('end', () => {
          const headers: Record<string, string> = {};
          for (const [k, v] of Object.entries(m.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
          resolveP({ status: m.statusCode ?? 0, statusText: m.statusMessage ?? '', headers, body: Buffer.concat(chunks) });
        });
        m.on('error', reject);
      },
    );
    r.on('timeout', () => r.destroy(new Error(`no answer within ${timeout / 1000} s`)));
    r.on('error', reject);
    if (init.body) r.write(init.body);
    r.end();
  });
  return { reply: { ok: true, status: res.status, statusText: res.statusText, headers: res.headers, body: res.body.toString('utf8') }, host, decider: 'policy' };
}
