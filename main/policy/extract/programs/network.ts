// Network clients: curl, wget, ssh, scp/rsync, netcat, DNS and ping tools.
import { fileUrlPath, hostOfTarget, hostOfUrl, hostsOfUrl, scpHost } from '../hosts.js';
import { has, optVals, parseArgs } from '../shell/options.js';
import { pathOf } from '../shell/path-args.js';
import { nested, run } from '../shell/script.js';
import { type Ctx, type Env, type EW, type Feed, type Handler, MAX_DEPTH, UNKNOWN } from '../shell/types.js';
import { unknownProgram } from '../shell/unknown-program.js';
import { intoFolder } from './files.js';

/** The first remote host among scp/rsync/sftp operands (`host:path`, a URL, sftp's destination). */
function remoteOf(pos: EW[], name: string): string | null {
  for (const [i, a] of pos.entries()) {
    if (!a.known) continue;
    const h = a.t.includes('://') ? hostOfUrl(a.t) : scpHost(a.t, false) ?? (name === 'sftp' && i === 0 ? hostOfTarget(a.t) : null);
    if (h) return h;
  }
  return null;
}

function remoteCopy(name: string): Handler {
  return (args, env, c) => {
    const col = c.col;
    col.op('copy');
    const p = parseArgs(args, name === 'rsync' ? 'eTfB' : name === 'sftp' ? 'PiolSFcJDXBbRs' : 'PiolSFcJDX', ['--rsh', '--exclude', '--include', '--filter', '--temp-dir', '--password-file', '--port', '--rsync-path', '--files-from', '--exclude-from', '--include-from', '--log-file', '--backup-dir', '--compare-dest', '--copy-dest', '--link-dest', '--partial-dir', '--chmod', '--chown']);
    const tree = has(p, '-r', '-a', '-R', '--recursive', '--archive') || name === 'sftp';
    // Side doors: a remote shell or remote program of the caller's choosing, ssh options that run commands.
    for (const o of p.opts) {
      if (o.name === '-e' || o.name === '--rsh' || o.name === '--rsync-path' || o.name === '-S') {
        col.op('execute');
        col.evasive(`${name} ${o.name} runs a program of the caller's choosing`);
        // The local remote shell is judged too (`-e 'ssh -J 10.0.0.5'` reaches 10.0.0.5).
        if (o.name !== '--rsync-path' && o.value?.known && env.depth < MAX_DEPTH) nested(o.value.t, env, c);
      } else if (o.name === '-D' && name !== 'rsync') {
        // scp/sftp -D: "connect directly to a local sftp server" — a program of the caller's choosing.
        col.op('execute');
        col.evasive(`${name} -D runs a program of the caller's choosing`);
      } else if (o.name === '-o' && o.value) sshOption(name, o.value, env, c, remoteOf(p.pos, name));
      else if (o.name === '-J' && name !== 'rsync' && o.value) sshJump(name, o.value, c);
      else if (o.name === '-F' || (o.name === '-b' && name === 'sftp')) {
        pathOf(o.value ?? UNKNOWN, env, c, 'read');
        if (o.name === '-F' && !(o.value?.known && (o.value.t === '/dev/null' || o.value.t === 'none'))) col.evasive(`${name} -F: a configuration file Gatehouse does not read (it can run commands and change the host)`);
      }
      else if (o.name === '--files-from') {
        pathOf(o.value ?? UNKNOWN, env, c, 'read');
        col.evasive(`${name} takes the names to copy from a file`);
      } else if (o.name === '--log-file') pathOf(o.value ?? UNKNOWN, env, c, 'write');
    }
    if (name === 'scp' || name === 'sftp') col.op('network');
    if (p.opts.some((o) => o.name.startsWith('--delete') || o.name === '--remove-source-files')) col.op('delete');
    for (const o of p.opts) if (o.name === '-i') pathOf(o.value ?? { t: '', known: false, tilde: false, subst: false, indirect: false, vars: false }, env, c, 'read');
    const last = p.pos.length - 1;
    p.pos.forEach((a, i) => {
      // A word Gatehouse cannot read may name a host (`scp a.txt $x:/tmp`) or any file.
      if (!a.known) return col.evasive(`${name}: an operand Gatehouse cannot read (a host or a path)`);
      const remote = a.t.includes('://') ? hostOfUrl(a.t) : scpHost(a.t, false);
      if (remote) {
        col.op('network');
        col.host(remote);
        return;
      }
      if (name === 'sftp' && i === 0) { col.op('network'); col.host(hostOfTarget(a.t)); return; }
      pathOf(a, env, c, i === last && last > 0 ? 'write' : 'read', tree);
    });
    const tgt = p.pos[last];
    if (last > 0 && tgt?.known && !scpHost(tgt.t, false) && !tgt.t.includes('://')) intoFolder(p.pos.slice(0, last), tgt, env, c);
  };
}

function curl(args: EW[], env: Env, c: Ctx): void {
  const col = c.col;
  col.op('network');
  const p = parseArgs(args, 'oTdDFHXuAebcxKmwrCEYyzQUtP', [
    '--output', '--upload-file', '--data', '--data-binary', '--data-raw', '--data-urlencode', '--form', '--header',
    '--request', '--user', '--user-agent', '--referer', '--cookie', '--cookie-jar', '--proxy', '--config', '--max-time',
    '--write-out', '--url', '--connect-timeout', '--retry', '--cacert', '--cert', '--key', '--resolve', '--connect-to',
    '--output-dir', '--dump-header', '--trace', '--trace-ascii', '--stderr', '--netrc-file', '--preproxy',
    '--socks4', '--socks4a', '--socks5', '--socks5-hostname', '--proxy1.0', '--interface', '--dns-servers', '--doh-url',
    '--capath', '--crlfile', '--proxy-cacert', '--proxy-cert', '--proxy-key', '--unix-socket', '--abstract-unix-socket',
    '--json', '--variable', '--url-query', '--form-string', '--hsts', '--alt-svc', '--etag-save', '--etag-compare', '--libcurl',
  ]);
  for (const u of [...p.pos, ...optVals(p, '--url')]) {
    if (!u.known) continue;
    // `file:///home/u/.ssh/id_rsa` is a read of that file, not a request to a host.
    const f = fileUrlPath(u.t);
    if (f) {
      pathOf({ ...u, t: f, tilde: false }, env, c, 'read');
      continue;
    }
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(u.t)) hostsOfUrl(u.t, (h) => col.host(h));
    else hostsOfUrl('http://' + u.t, (h) => col.host(h));
  }
  // Proxies and address overrides are where curl really connects.
  for (const x of optVals(p, '-x', '--proxy', '--preproxy', '--socks4', '--socks4a', '--socks5', '--socks5-hostname', '--proxy1.0', '--doh-url')) {
    if (x.known) hostsOfUrl(/^[a-z][a-z0-9+.-]*:\/\//i.test(x.t) ? x.t : 'http://' + x.t, (h) => col.host(h));
  }
  for (const r of optVals(p, '--resolve')) {
    // HOST:PORT:ADDR[,ADDR]… (ADDR may be a bracketed IPv6 literal).
    const m = /^\+?[^:]*:[^:]*:(.+)$/.exec(r.t);
    if (r.known && m?.[1]) for (const a of m[1].split(',')) col.host(cleanAddr(a));
  }
  for (const r of optVals(p, '--connect-to')) {
    // HOST:PORT:CONNECT-TO-HOST:CONNECT-TO-PORT
    const m = /^[^:]*:[^:]*:(\[[^\]]*\]|[^:]*)/.exec(r.t);
    if (r.known && m?.[1]) col.host(cleanAddr(m[1]));
  }
  for (const x of optVals(p, '--unix-socket', '--abstract-unix-socket')) pathOf(x, env, c, 'write');
  if (has(p, '-K', '--config')) col.evasive('curl reads more options from a file');
  for (const o of p.opts) {
    if (!o.value) continue;
    const n = o.name;
    if (['-o', '--output', '-c', '--cookie-jar', '-D', '--dump-header', '--trace', '--trace-ascii', '--stderr', '--output-dir'].includes(n)) {
      if (o.value.t !== '-') pathOf(o.value, env, c, 'write');
    } else if (['-T', '--upload-file', '-K', '--config', '--cacert', '--cert', '--key', '--netrc-file', '-E'].includes(n)) pathOf(o.value, env, c, 'read');
    else if (['-d', '--data', '--data-binary', '--data-urlencode', '-F', '--form', '-b', '--cookie', '-H', '--header'].includes(n)) {
      const at = o.value.t.indexOf('@');
      const lt = o.value.t.indexOf('<');
      const i = at >= 0 && (n.startsWith('-d') || n.startsWith('--data') || n === '-H' || n === '--header') ? (at === 0 ? 0 : -1) : Math.max(at, lt);
      if (i >= 0 && (at === 0 || n === '-F' || n === '--form')) {
        const f = o.value.t.slice(i + 1).split(';')[0] ?? '';
        if (f && f !== '-') pathOf({ ...o.value, t: f, tilde: f[0] === '~' }, env, c, 'read');
      } else if (n === '-b' || n === '--cookie') {
        if (!o.value.t.includes('=')) pathOf(o.value, env, c, 'read');
      }
    }
  }
  if (has(p, '-O', '--remote-name', '--remote-name-all')) col.op('write');
}

function cleanAddr(a: string): string | null {
  const t = a.trim();
  if (!t) return null;
  return hostOfTarget(t.startsWith('[') ? t : t.replace(/:\d*$/, ''));
}

function wget(args: EW[], env: Env, c: Ctx): void {
  const col = c.col;
  col.op('network');
  const p = parseArgs(args, 'OoPiaTtUeB', ['--output-document', '--output-file', '--directory-prefix', '--input-file', '--user', '--password', '--header', '--user-agent', '--post-file', '--post-data', '--timeout', '--tries', '--load-cookies', '--save-cookies', '-e', '--execute']);
  for (const u of p.pos) if (u.known) hostsOfUrl(u.t.includes('://') ? u.t : 'http://' + u.t, (h) => col.host(h));
  for (const o of p.opts) {
    if ((o.name !== '-e' && o.name !== '--execute') || !o.value?.known) continue;
    if (/^\s*(use_askpass|post_file|load_cookies|output_document|input|ca_certificate|certificate|private_key)/i.test(o.value.t)) col.evasive('wget -e sets a file or program option');
    const px = /^\s*(https?_proxy|ftp_proxy)\s*=\s*(.+)$/i.exec(o.value.t);
    if (px?.[2]) hostsOfUrl(/^[a-z][a-z0-9+.-]*:\/\//i.test(px[2]) ? px[2] : 'http://' + px[2], (h) => col.host(h));
  }
  for (const o of p.opts) {
    if (!o.value) continue;
    if (['-O', '--output-document', '-o', '--output-file', '-a', '--save-cookies'].includes(o.name)) { if (o.value.t !== '-') pathOf(o.value, env, c, 'write'); }
    else if (['-P', '--directory-prefix'].includes(o.name)) pathOf(o.value, env, c, 'write');
    else if (['-i', '--input-file', '--post-file', '--load-cookies'].includes(o.name)) pathOf(o.value, env, c, 'read');
  }
  if (!has(p, '-O', '--output-document', '--spider')) col.op('write');
}

/** ssh options that run a local command: `-o ProxyCommand=…`, `LocalCommand`, `KnownHostsCommand`, `Match exec`. */
const SSH_EXEC_OPT = /^\s*(proxycommand|localcommand|knownhostscommand|match|securitykeyprovider|pkcs11provider)\b/i;

/**
 * The jump hosts of `-J` or `-o ProxyJump=`: `[user@]host[:port]` or `ssh://…`, comma-separated;
 * ssh connects to each (the first from this machine), so each is a host the call reaches.
 */
function sshJump(name: string, v: EW, c: Ctx): void {
  const col = c.col;
  col.op('network');
  if (!v.known) return col.evasive(`${name}: a jump host Gatehouse cannot read`);
  for (const j of v.t.split(',')) if (j.trim().toLowerCase() !== 'none') col.host(hostOfTarget(j.trim()));
}

/** A forward as ssh_config writes it (`[bind:]port host:hostport`) or as -L/-R/-D take it (`[bind:]port:host:hostport`): the addresses it names. */
function forwardHosts(spec: string, dynamic: boolean, c: Ctx): void {
  const parts = spec.match(/\[[^\]]*\]|[^:\s]+/g) ?? [];
  const hosts = parts.filter((x) => !/^\d+$/.test(x) && !x.startsWith('/'));
  for (const h of hosts) c.col.host(hostOfTarget(h));
  if (!dynamic && hosts.length === 0 && parts.length >= 1) c.col.host('localhost');
}

/**
 * One `-o` option of ssh, scp or sftp (`Key=Value`, `Key Value` or `Key = Value`, the key in any
 * case): options that name where ssh connects (ProxyJump, HostName, forwards) report those hosts;
 * options that run a command (ProxyCommand, LocalCommand, …) make the call unsure, and the
 * command is judged too (`ProxyCommand nc 10.0.0.5 22` reaches 10.0.0.5).
 */
function sshOption(name: string, v: EW, env: Env, c: Ctx, target: string | null): void {
  const col = c.col;
  if (!v.known) {
    col.op('execute');
    return col.evasive(`${name} -o with an option Gatehouse cannot read`);
  }
  const m = /^\s*([A-Za-z0-9]+)\s*(?:=\s*|\s+)(.*)$/s.exec(v.t);
  const key = (m?.[1] ?? v.t.trim()).toLowerCase();
  const value = (m?.[2] ?? '').trim().replace(/^"(.*)"$/s, '$1');
  if (SSH_EXEC_OPT.test(key)) {
    col.op('execute');
    col.evasive(`${name} -o ${m?.[1] ?? key} runs a command`);
    // %h and %n are the host ssh was given (judged already), %p its port, %r the user.
    const cmd = value.replace(/%([%hnpr])/g, (_, t: string) => (t === '%' ? '%' : t === 'p' ? '22' : t === 'r' ? 'user' : (target ?? '')));
    if (cmd && key !== 'match' && env.depth < MAX_DEPTH) nested(cmd, env, c);
    return;
  }
  if (key === 'proxyjump') sshJump(name, { ...v, t: value }, c);
  else if (key === 'hostname' && value) {
    col.op('network');
    col.host(hostOfTarget(value));
  } else if (key === 'localforward' || key === 'remoteforward' || key === 'dynamicforward') {
    col.op('network');
    forwardHosts(value, key === 'dynamicforward', c);
  } else if (SSH_FILE_OPT[key] && value && value.toLowerCase() !== 'none') {
    // Files ssh reads or writes: the known-hosts file takes the new host key (a write), keys and
    // certificates are read; several may be listed, and ssh expands ~ in them.
    for (const f of value.split(/\s+/)) pathOf({ ...v, t: f, tilde: f.startsWith('~') }, env, c, SSH_FILE_OPT[key]);
  } else if (key === 'include') {
    col.op('execute');
    col.evasive(`${name} -o ${m?.[1] ?? key} loads code or configuration Gatehouse does not read`);
  }
}

/** ssh options that name a file, and what ssh does with it. */
const SSH_FILE_OPT: Record<string, 'read' | 'write'> = {
  userknownhostsfile: 'write',
  globalknownhostsfile: 'read',
  identityfile: 'read',
  certificatefile: 'read',
  revokedhostkeys: 'read',
  controlpath: 'write',
};

function ssh(args: EW[], env: Env, c: Ctx): void {
  const col = c.col;
  col.op('network');
  const p = parseArgs(args, 'BbcDEeFIiJLlmOoPpQRSWw', []);
  const target = p.pos[0];
  for (const o of p.opts) {
    if (!o.value) continue;
    if (o.name === '-o') sshOption('ssh', o.value, env, c, target?.known ? hostOfTarget(target.t) : null);
    // [bind:]port:host:hostport — both the bound and the forwarded-to address are reached.
    if (o.name === '-L' || o.name === '-R' || o.name === '-D') forwardHosts(o.value.t, o.name === '-D', c);
    // -W host:port: stdio forwarded to that address (through the target, as a jump host would).
    else if (o.name === '-W') {
      if (!o.value.known) col.evasive('ssh -W: an address Gatehouse cannot read');
      else col.host(hostOfTarget(o.value.t.startsWith('[') ? o.value.t : o.value.t.replace(/:[^:]*$/, '')));
    }
    if (o.name === '-i') pathOf(o.value, env, c, 'read');
    else if (o.name === '-F') {
      pathOf(o.value, env, c, 'read');
      // A configuration file can run commands (Match exec, ProxyCommand, LocalCommand) and send the
      // connection to another host (HostName); the judge does not read it. /dev/null and none are empty.
      if (!(o.value.known && (o.value.t === '/dev/null' || o.value.t === 'none'))) col.evasive('ssh -F: a configuration file Gatehouse does not read (it can run commands and change the host)');
    }
    else if (o.name === '-J') sshJump('ssh', o.value, c);
    else if (o.name === '-E') pathOf(o.value, env, c, 'write');
  }
  if (target && !target.known) col.evasive('ssh: a host Gatehouse cannot read');
  else if (target) col.host(hostOfTarget(target.t));
}

function netcat(args: EW[], env: Env, c: Ctx): void {
  const col = c.col;
  col.op('network');
  const p = parseArgs(args, 'pswiqxXeIOTVWc', ['--exec', '--sh-exec', '--proxy', '--source']);
  for (const o of p.opts) {
    if (!o.value) continue;
    if (o.name === '-e' || o.name === '--exec') {
      pathOf(o.value, env, c);
      col.evasive('nc -e hands a program to the network');
    } else if (o.name === '-c' || o.name === '--sh-exec') {
      col.evasive('nc -c hands a shell command to the network');
      if (o.value.known) nested(o.value.t, env, c);
    }
    else if (o.name === '-x' || o.name === '--proxy') {
      if (!o.value.known) col.evasive('nc: a proxy Gatehouse cannot read');
      else col.host(hostOfTarget(o.value.t));
    }
  }
  const target = p.pos[0];
  if (target && !target.known) col.evasive('nc: a host Gatehouse cannot read');
  else if (target && !/^\d+(-\d+)?$/.test(target.t)) col.host(hostOfTarget(target.t));
}

function firstHost(v: string, lv: string[] = []): Handler {
  return (args, _env, c) => {
    c.col.op('network');
    const p = parseArgs(args, v, lv);
    const t = p.pos[0];
    if (t && !t.known) c.col.evasive('a host Gatehouse cannot read');
    else if (t) c.col.host(hostOfTarget(t.t));
  };
}

function dig(args: EW[], _env: Env, c: Ctx): void {
  c.col.op('network');
  const RR = /^(a|aaaa|mx|ns|txt|cname|soa|ptr|srv|any|caa|ds|dnskey|axfr|in|ch)$/i;
  const p = parseArgs(args, 'bcfkpqtxy', []);
  for (const a of p.pos) {
    if (!a.known || a.t.startsWith('+')) continue;
    if (a.t.startsWith('@')) c.col.host(hostOfTarget(a.t.slice(1)));
    else if (!RR.test(a.t)) c.col.host(hostOfTarget(a.t));
  }
  for (const x of optVals(p, '-q', '-x')) if (x.known) c.col.host(hostOfTarget(x.t));
}

/** socat address types that connect to `host:port` (TCP:, TCP4-CONNECT:, UDP-SENDTO:, OPENSSL:, SSL:, DTLS:, IP-SENDTO:…). */
const SOCAT_CONNECT = /^(tcp|udp|udplite|sctp|dccp|openssl|ssl|dtls|ip)[46]?(-(connect|sendto|datagram|dtls-client|dtls-connect))?$/i;
/** …and those that go through a proxy first (`PROXY:proxy:host:port`, `SOCKS4:server:host:port`, `SOCKS5-CONNECT:server:port:host:port`). */
const SOCAT_PROXY = /^(proxy|socks[45]?a?)(-connect)?$/i;
/** Address types that listen, or take packets, on this machine (TCP-LISTEN:, TCP-L:, UDP-RECV:…). */
const SOCAT_LISTEN = /^(tcp|udp|udplite|sctp|dccp|openssl|ssl|dtls|ip|socks[45]?a?|vsock)[46]?-(l|listen|recv|recvfrom|server|accept|dtls-server|dtls-listen)$/i;

/** The `:`-separated parameters of a socat address, up to its first `,` option (`[v6]` kept whole). */
function socatParams(rest: string): string[] {
  const comma = rest.search(/,/);
  const body = comma >= 0 ? rest.slice(0, comma) : rest;
  return body.match(/\[[^\]]*\]|[^:]+/g) ?? [];
}

/**
 * socat joins two addresses. The ones that connect (`TCP:169.254.169.254:80`, `OPENSSL:host:443`,
 * `PROXY:proxy:host:port`) name the hosts reached; one that runs a program (`EXEC:`, `SYSTEM:`,
 * `SHELL:`) hands it the other side, so the call is unsure and the program judged; a vsock
 * reaches the machine's hypervisor. Files and sockets (`OPEN:`, `CREATE:`, `UNIX-CONNECT:`) are
 * judged as before socat had a handler: as an unknown program's path-like arguments.
 */
function socat(args: EW[], env: Env, c: Ctx, _feed: Feed, name: string): void {
  const col = c.col;
  const p = parseArgs(args, 'btTLWrRS', ['-lf', '-lp']);
  for (const a of p.pos) {
    if (a.t === '-') continue;
    if (!a.known) {
      col.evasive('socat: an address Gatehouse cannot read');
      continue;
    }
    // ADDR!!ADDR: one address to read from, one to write to.
    for (const addr of a.t.split('!!')) {
      const colon = addr.indexOf(':');
      if (colon <= 0) continue;
      const type = addr.slice(0, colon);
      const rest = addr.slice(colon + 1);
      if (SOCAT_CONNECT.test(type)) {
        col.op('network');
        const h = socatParams(rest)[0];
        if (h) col.host(hostOfTarget(h));
      } else if (SOCAT_PROXY.test(type)) {
        col.op('network');
        const ps = socatParams(rest);
        for (const h of ps.slice(0, -1)) if (!/^\d+$/.test(h)) col.host(hostOfTarget(h));
      } else if (SOCAT_LISTEN.test(type)) col.op('network');
      else if (/^vsock(-connect)?$/i.test(type)) {
        col.op('network');
        col.evasive('socat VSOCK-CONNECT reaches the virtual machine\'s host');
      } else if (/^(exec|system|shell)$/i.test(type)) {
        col.op('execute');
        col.evasive(`socat ${type.toUpperCase()}: hands a connection to a program`);
        // The program is up to the first `,` option (socat's own quoting aside).
        const cmd = rest.split(',')[0] ?? '';
        if (cmd && env.depth < MAX_DEPTH) nested(cmd, env, c);
      }
    }
  }
  unknownProgram(args, env, c, false, name);
}

/** toybox runs its applets (`toybox nc …`), as busybox does: judged as the applet. */
function toybox(args: EW[], env: Env, c: Ctx, feed: Feed): void {
  const i = args.findIndex((a) => !a.t.startsWith('-'));
  if (i >= 0) run(args.slice(i), env, c, feed);
}

/**
 * openssl's clients: `s_client -connect host:port` (or a bare `host:port`, or `-host`), `s_time
 * -connect`, `ocsp -url`/`-host` reach that server (s_client alone reaches localhost:4433);
 * `-proxy` names a proxy reached first. Files are judged as an unknown program's path-like arguments.
 */
/** openssl client options whose value is a name, an address or a setting, never a file. */
const OPENSSL_NON_FILE = new Set(['connect', 'host', 'port', 'proxy', 'url', 'bind', 'servername', 'verify_hostname', 'verify_email', 'verify_ip', 'starttls', 'name', 'xmpphost', 'cipher', 'ciphersuites', 'curves', 'groups', 'sigalgs', 'client_sigalgs', 'alpn', 'nextprotoneg', 'verify', 'verify_depth', 'time', 'maxfraglen', 'max_send_frag', 'split_send_frag', 'max_pipelines', 'read_buf', 'psk_identity', 'psk', 'srpuser', 'srppass', 'dane_tlsa_domain', 'dane_tlsa_rrdata', 'proxy_user', 'proxy_pass', 'protohost', 'timeout', 'header']);

function openssl(args: EW[], env: Env, c: Ctx, _feed: Feed, name: string): void {
  const col = c.col;
  const sub = args[0]?.t ?? '';
  const judged = new Set<number>();
  if (sub === 's_client' || sub === 's_time' || sub === 'ocsp') {
    if (sub !== 'ocsp') col.op('network');
    let named = false;
    for (let i = 1; i < args.length; i++) {
      const a = args[i] as EW;
      const opt = a.t.replace(/^--?/, '').split('=')[0] ?? '';
      const glued = a.t.startsWith('-') && a.t.includes('=') ? a.t.slice(a.t.indexOf('=') + 1) : null;
      if (a.t.startsWith('-') && OPENSSL_NON_FILE.has(opt)) {
        judged.add(i);
        if (glued === null) judged.add(i + 1);
      }
      if (a.t.startsWith('-') && ['connect', 'host', 'proxy', 'url'].includes(opt)) {
        const v = glued !== null ? { ...a, t: glued } : args[++i];
        col.op('network');
        if (opt !== 'proxy') named = true;
        if (!v?.known) col.evasive(`openssl ${sub} -${opt}: an address Gatehouse cannot read`);
        else if (opt === 'url' || v.t.includes('://')) hostsOfUrl(v.t.includes('://') ? v.t : `http://${v.t}`, (h) => col.host(h));
        else col.host(hostOfTarget(v.t));
      } else if (a.known && !a.t.startsWith('-') && sub === 's_client' && /^(\[[0-9a-f:.]+\]|[a-z0-9_.-]+):[a-z0-9]+$/i.test(a.t) && !/^-(bind|servername|verify_hostname|starttls|name|xmpphost)$/.test(args[i - 1]?.t ?? '')) {
        // OpenSSL 3's s_client takes host:port as its last word.
        named = true;
        judged.add(i);
        col.host(hostOfTarget(a.t));
      }
    }
    if (!named && sub !== 'ocsp') col.host('localhost');
  } else if (sub === 's_server') col.op('network');
  // Files (-CAfile, -cert, -sess_out…) as before openssl had a handler: an unknown program's.
  unknownProgram(judged.size ? args.filter((_, i) => !judged.has(i)) : args, env, c, false, name);
}

/** gnutls-cli [options] HOST (`-p PORT`, `--port=`): the host it reaches, and a `--proxy`'s. */
function gnutlsCli(args: EW[], env: Env, c: Ctx, _feed: Feed, name: string): void {
  const col = c.col;
  col.op('network');
  const p = parseArgs(args, 'dp', ['--debug', '--port', '--sni-hostname', '--verify-hostname', '--verify-email', '--verify-purpose', '--starttls-proto', '--mtu', '--save-cert', '--save-ocsp', '--save-ocsp-multi', '--save-server-trace', '--save-client-trace', '--dh-bits', '--priority', '--x509cafile', '--x509crlfile', '--x509keyfile', '--x509certfile', '--rawpkkeyfile', '--rawpkfile', '--srpusername', '--srppasswd', '--pskusername', '--pskkey', '--srtp-profiles', '--alpn', '--compress-cert', '--recordsize', '--inline-commands-prefix', '--provider', '--keymatexport', '--keymatexportsize', '--logfile', '--attime', '--earlydata', '--list-config', '--proxy', '--ocsp-file']);
  const target = p.pos[0];
  if (target && !target.known) col.evasive(`${name}: a server address Gatehouse cannot read`);
  else if (target) col.host(hostOfTarget(target.t));
  for (const x of optVals(p, '--proxy')) if (x.known) col.host(hostOfTarget(x.t));
  // The files it reads and writes (--x509cafile, --save-cert, --logfile…): read or written.
  for (const o of p.opts) {
    if (!o.value) continue;
    if (/^--(save-|logfile)/.test(o.name)) pathOf(o.value, env, c, 'write');
    else if (/^--(x509|rawpk|earlydata|provider|ocsp-file|srppasswd|inline-commands)/.test(o.name) || (o.name === '--pskkey' && o.value.t.includes('/'))) pathOf(o.value, env, c, 'read');
  }
}

/** Clients that reach another host: the hosts they name, and the local files they send or save. */
export const NETWORK_PROGRAMS: Record<string, Handler> = {
  rsync: remoteCopy('rsync'), scp: remoteCopy('scp'), sftp: remoteCopy('sftp'),
  curl, wget, ssh, nc: netcat, ncat: netcat, netcat, telnet: firstHost(''), ftp: firstHost('p'), mosh: firstHost(''),
  ping: firstHost('cisWtlIQpMm'), ping6: firstHost('cisWtlIQ'), traceroute: firstHost('fmpqwzA'), mtr: firstHost('c'), whois: firstHost('hp'),
  nslookup: (args, env, c) => { firstHost('')(args, env, c, { upstream: null, redirects: [] }, ''); const s = parseArgs(args).pos[1]; if (s?.known) c.col.host(hostOfTarget(s.t)); },
  host: firstHost('tWcNR'), dig,
  'ssh-keyscan': firstHost('pTt'),
  socat, toybox, openssl, 'gnutls-cli': gnutlsCli, 'gnutls-cli-debug': gnutlsCli,
};
