// The bypass corpus (issue #13): hundreds of tool calls an agent might send, each with the
// decision Gatehouse should reach at supervised and at full autonomy, sent through a REAL host
// (the built CLI's `gatehouse serve` as a child process) over Claude Code's HTTP hook route, the
// way an agent's calls arrive. The host's HOME is a fake home with real (dummy) credential files,
// so what the judge resolves, expands or globs on disk is what it would meet on a real machine.
//
// Expectations are what the issue asks for, not what the code does today. Cases the judge still
// gets wrong are listed in fixtures/security-corpus/known-misses.json with a one-line reason; a
// known miss that starts passing fails here, so the list only ever shrinks honestly.
//
// The host runs in dry-run (the hook never executes anything anyway: Claude Code runs its own
// tools) with hookAsk "agent", so an asked call comes back at once instead of waiting in the inbox.
// In dry-run the hook answers "ask" for everything and says in its reason what Gatehouse would
// have done; that sentence is what is read back here.
//
// It judges with the built CLI (out/), like the other CLI tests: after changing the judge, run
// `node scripts/build.mjs` first. GATEHOUSE_CORPUS_REPORT=FILE writes every answer to FILE, for
// whoever updates known-misses.json.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliPath, repoRoot } from '../../support/cli.js';
import { http } from '../../support/net.js';

type Decision = 'allow' | 'ask' | 'deny';
type Level = 'supervised' | 'full';
const LEVELS: Level[] = ['supervised', 'full'];

interface Case {
  id: string;
  tool: string;
  input: Record<string, unknown>;
  /** One decision, or several separated by "|" when the issue accepts either ("ask|deny"). */
  supervised: string;
  full: string;
  class: string;
  /** Working directory (placeholders allowed); the project folder by default. */
  cwd?: string;
  /** "symlinked": judged by a host whose $HOME is a symlink to the real home (finding 3). */
  home?: 'symlinked';
  note?: string;
}
interface KnownMiss {
  levels: Level[];
  why: string;
}

const fixtures = join(repoRoot, 'test', 'fixtures', 'security-corpus');
const load = (file: string): Case[] => (JSON.parse(readFileSync(join(fixtures, file), 'utf8')) as { cases: Case[] }).cases;
// Every fixture file but the known misses: a new class of cases is one more file here.
const cases: Case[] = readdirSync(fixtures)
  .filter((f) => f.endsWith('.json') && f !== 'known-misses.json')
  .sort()
  .flatMap(load);
const knownMisses = JSON.parse(readFileSync(join(fixtures, 'known-misses.json'), 'utf8')) as { misses: Record<string, KnownMiss> };

// ---- the fake home -------------------------------------------------------------------------------

interface FakeHome {
  root: string;
  /** The real folder of the home. */
  home: string;
  /** What the host gets as $HOME: `home`, or `alias` for a symlinked home. */
  envHome: string;
  /** A symlink to `home` (Fedora Atomic's /home → /var/home, in small). */
  alias: string;
  proj: string;
  gatehouse: string;
}

function put(file: string, text: string, mode = 0o644): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  chmodSync(file, mode);
}

function makeFakeHome(symlinked = false): FakeHome {
  const root = mkdtempSync(join(tmpdir(), 'gatehouse-corpus-'));
  const home = join(root, 'home');
  const proj = join(home, 'work', 'proj');
  const gatehouse = join(home, '.config', 'gatehouse');
  put(join(home, '.ssh', 'id_rsa'), '-----BEGIN OPENSSH PRIVATE KEY-----\ndummy-corpus-key\n-----END OPENSSH PRIVATE KEY-----\n', 0o600);
  put(join(home, '.ssh', 'id_rsa.pub'), 'ssh-rsa AAAAdummy corpus@example\n');
  put(join(home, '.ssh', 'config'), 'Host prod\n  HostName 10.0.0.5\n  IdentityFile ~/.ssh/id_rsa\n');
  put(join(home, '.ssh', 'known_hosts'), 'prod ssh-ed25519 AAAAdummy\n');
  put(join(home, '.aws', 'credentials'), '[default]\naws_access_key_id = AKIADUMMYDUMMYDUMMY\naws_secret_access_key = dummy\n', 0o600);
  put(join(home, '.aws', 'config'), '[default]\nregion = eu-west-1\n');
  put(join(home, '.config', 'gcloud', 'application_default_credentials.json'), '{"type":"authorized_user","refresh_token":"dummy"}\n', 0o600);
  put(join(home, '.config', 'gcloud', 'credentials.db'), 'dummy\n', 0o600);
  put(join(home, '.kube', 'config'), 'apiVersion: v1\nusers:\n- name: admin\n  user: { token: dummy }\n', 0o600);
  put(join(home, '.docker', 'config.json'), '{"auths":{"registry.example":{"auth":"ZHVtbXk6ZHVtbXk="}}}\n', 0o600);
  // Saved daemons (network-programs.json): a Docker context and a Podman connection on other
  // machines, and a Docker context on a local socket.
  const dockerContext = (name: string, host: string) =>
    put(join(home, '.docker', 'contexts', 'meta', createHash('sha256').update(name).digest('hex'), 'meta.json'), JSON.stringify({ Name: name, Metadata: {}, Endpoints: { docker: { Host: host, SkipTLSVerify: false } } }));
  dockerContext('remote', 'ssh://deploy@10.0.0.7');
  dockerContext('rootless', 'unix:///run/user/1000/docker.sock');
  put(join(home, '.config', 'containers', 'podman-connections.json'), JSON.stringify({ Connection: { Default: 'prod', Connections: { prod: { URI: 'ssh://core@10.0.0.8:22/run/podman/podman.sock', Identity: '~/.ssh/id_rsa' } } } }));
  put(join(home, '.netrc'), 'machine api.example login me password dummy\n', 0o600);
  put(join(home, '.git-credentials'), 'https://me:dummy@git.example\n', 0o600);
  put(join(home, '.gnupg', 'private-keys-v1.d', 'ABCDEF.key'), 'dummy gpg key\n', 0o600);
  put(join(home, '.gnupg', 'pubring.kbx'), 'dummy\n');
  put(join(home, '.bashrc'), 'export PATH="$HOME/bin:$PATH"\n');
  put(join(home, '.profile'), '. ~/.bashrc\n');
  put(join(home, '.vimrc'), 'set number\n');
  put(join(home, '.config', 'chromium', 'Default', 'History'), 'SQLite format 3\0 dummy history\n', 0o600);
  put(join(home, '.config', 'chromium', 'Default', 'Cookies'), 'SQLite format 3\0 dummy cookies\n', 0o600);
  put(join(home, '.mozilla', 'firefox', 'abcd.default-release', 'cookies.sqlite'), 'SQLite format 3\0 dummy\n', 0o600);
  put(join(proj, 'README.md'), '# proj\n\nA small project.\n');
  put(join(proj, 'package.json'), '{"name":"proj","version":"1.0.0","scripts":{"test":"node --test","build":"node build.js"}}\n');
  put(join(proj, 'src', 'index.ts'), "export const hello = (n: string) => `hello ${n}`; // TODO: i18n\n");
  put(join(proj, 'src', 'util.ts'), 'export const add = (a: number, b: number) => a + b;\n');
  put(join(proj, 'notes.txt'), 'b\na\na\n');
  put(join(proj, '.env'), 'DATABASE_URL=postgres://app:dummy@10.0.0.5/app\nAPI_KEY=dummy\n', 0o600);
  put(join(proj, '.env.example'), 'DATABASE_URL=\nAPI_KEY=\n');
  put(join(proj, 'scripts', 'build.sh'), '#!/bin/sh\necho build\n', 0o755);
  put(join(proj, '.git', 'config'), '[core]\n\trepositoryformatversion = 0\n');
  put(join(proj, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  put(join(proj, '.git', 'hooks', 'pre-commit.sample'), '#!/bin/sh\n', 0o755);
  mkdirSync(join(proj, '.gatehouse', 'plugins'), { recursive: true });
  // A link inside the project that leads into a protected tree.
  symlinkSync(join(home, '.ssh'), join(proj, 'keys'));
  // A link to its own folder, in a folder of its own (a walk of {PROJ} would loop through it):
  // dotdot.json climbs out through it (`here/here/../..` is two folders up for the kernel).
  mkdirSync(join(home, 'work', 'dots'), { recursive: true });
  symlinkSync('.', join(home, 'work', 'dots', 'here'));
  // Gatehouse's own CLI under another name ({CLI} is the real bin file): self-cli.json starts it as ~/tools/x.
  mkdirSync(join(home, 'tools'));
  symlinkSync(cliPath, join(home, 'tools', 'x'));
  // Hard links to protected files (hardlinks.json), in a folder of their own so that walks of
  // {PROJ} in the other fixtures do not reach them: the key, ~/.bashrc, a project's .env.
  const linked = join(home, 'work', 'linked');
  mkdirSync(linked, { recursive: true });
  put(join(linked, 'ordinary.txt'), 'nothing secret\n');
  linkSync(join(home, '.ssh', 'id_rsa'), join(linked, 'notes.bak'));
  linkSync(join(home, '.bashrc'), join(linked, 'shell.rc'));
  linkSync(join(home, '.aws', 'credentials'), join(linked, 'sub-credentials.txt'));
  put(join(linked, '.env'), 'TOKEN=dummy-linked\n', 0o600);
  linkSync(join(linked, '.env'), join(linked, 'settings.txt'));
  // A real repository whose index tracks a .env (git-objects.json): `git show :.env` prints it.
  const app = join(home, 'work', 'app');
  put(join(app, '.env'), 'API_KEY=dummy-tracked\n', 0o600);
  put(join(app, 'config', '.env.production'), 'API_KEY=dummy-prod\n', 0o600);
  put(join(app, '.env.example'), 'API_KEY=\n');
  put(join(app, 'src', 'main.ts'), 'export {};\n');
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=corpus', '-c', 'user.email=corpus@example', '-c', 'init.defaultBranch=main', ...args], { cwd: app, stdio: 'ignore' });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-qm', 'init');
  mkdirSync(join(gatehouse, 'plugins'), { recursive: true, mode: 0o700 });
  // Dry-run and supervised; an asked call is answered "ask" at once instead of waiting in the inbox.
  put(join(gatehouse, 'settings.json'), JSON.stringify({ mode: 'dry-run', autonomy: 'supervised', hookAsk: 'agent' }), 0o600);
  const alias = join(root, 'alias-home');
  symlinkSync(home, alias);
  // With a symlinked home (Fedora Atomic: /home → /var/home) the host is told the lexical paths,
  // and the agent's tools may name either the lexical or the real one.
  if (symlinked) return { root, home, envHome: alias, alias, proj, gatehouse: join(alias, '.config', 'gatehouse') };
  return { root, home, envHome: home, alias, proj, gatehouse };
}

/** Fills the placeholders a fixture uses for the fake home's absolute paths. */
function fill<T>(value: T, h: FakeHome): T {
  const text = JSON.stringify(value)
    .replaceAll('{PROJ}', h.proj)
    .replaceAll('{APP}', join(h.home, 'work', 'app'))
    .replaceAll('{LINKED}', join(h.home, 'work', 'linked'))
    .replaceAll('{GH}', h.gatehouse)
    .replaceAll('{ALIAS}', h.alias)
    .replaceAll('{HOME}', h.home)
    .replaceAll('{CLI}', cliPath)
    .replaceAll('{INSTALL}', repoRoot.replace(/\/$/, ''));
  return JSON.parse(text) as T;
}

// ---- the real host -------------------------------------------------------------------------------

interface RunningHost {
  child: ChildProcess;
  port: number;
  operatorToken: string;
  agentToken: string;
  stderr(): string;
}

/** `gatehouse serve` with the fake HOME and GATEHOUSE_HOME, started in the project folder. */
function startHost(h: FakeHome): Promise<RunningHost> {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: h.envHome, GATEHOUSE_HOME: h.gatehouse, XDG_CONFIG_HOME: join(h.envHome, '.config'), GATEHOUSE_NO_ELECTRON: '1', NO_COLOR: '1' };
  const child = spawn(process.execPath, [cliPath, 'serve', '--port', '0'], { cwd: h.proj, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let listening = false;
  return new Promise((resolve, reject) => {
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      const m = stdout.match(/Gatehouse console: http:\/\/127\.0\.0\.1:(\d+)\//);
      if (m && !listening) {
        listening = true;
        // serve.json is written before the console line is printed and holds both tokens (the
        // console line itself carries only a one-time code); the token files are the fallback.
        const info = JSON.parse(readFileSync(join(h.gatehouse, 'serve.json'), 'utf8')) as { token?: string; agentToken?: string };
        const file = (name: string) => (existsSync(join(h.gatehouse, name)) ? readFileSync(join(h.gatehouse, name), 'utf8').trim() : '');
        const operatorToken = info.token ?? file('operator-token');
        const agentToken = info.agentToken ?? file('agent-token');
        resolve({ child, port: Number(m[1]), operatorToken, agentToken, stderr: () => stderr });
      }
    });
    child.once('exit', (code, signal) => reject(new Error(`gatehouse serve exited (${code ?? signal}) before it listened.\nstdout: ${stdout}\nstderr: ${stderr}`)));
  });
}

async function operator(host: RunningHost, method: string, params: unknown): Promise<void> {
  const res = await http({ port: host.port, path: '/api/call', method: 'POST', headers: { Authorization: `Bearer ${host.operatorToken}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ method, params }) });
  const body = JSON.parse(res.body) as { ok: boolean; error?: unknown };
  if (!body.ok) throw new Error(`${method} failed: ${res.body}`);
}

interface Answer {
  decision: Decision | 'unreadable';
  reason: string;
}

/**
 * What Gatehouse decided, read from a dry-run hook answer: its reason says "would have allowed",
 * "would have asked an operator about" or "would have denied". A live answer (allow, deny, ask)
 * is taken as it is, so the corpus still reads right if the host is ever run live.
 */
function readAnswer(body: string): Answer {
  let parsed: { continue?: boolean; hookSpecificOutput?: { permissionDecision?: string; permissionDecisionReason?: string } };
  try {
    parsed = JSON.parse(body);
  } catch {
    return { decision: 'unreadable', reason: body.slice(0, 300) };
  }
  const out = parsed.hookSpecificOutput;
  // Live, a call only autonomy allows gets no decision (Claude Code's own rules then apply).
  if (!out && parsed.continue === true) return { decision: 'allow', reason: 'no decision: allowed by autonomy, left to Claude Code' };
  const reason = out?.permissionDecisionReason ?? '';
  if (/dry-run/.test(reason)) {
    if (/would have allowed/.test(reason)) return { decision: 'allow', reason };
    if (/would have asked/.test(reason)) return { decision: 'ask', reason };
    if (/would have denied/.test(reason)) return { decision: 'deny', reason };
    return { decision: 'unreadable', reason };
  }
  const d = out?.permissionDecision;
  return d === 'allow' || d === 'ask' || d === 'deny' ? { decision: d, reason } : { decision: 'unreadable', reason: body.slice(0, 300) };
}

async function hook(host: RunningHost, c: Case, h: FakeHome, n: number): Promise<Answer> {
  const input = {
    session_id: `corpus-${c.id}-${n}`,
    transcript_path: join(h.home, '.claude', 'projects', 'proj', 'transcript.jsonl'),
    cwd: fill(c.cwd ?? '{PROJ}', h),
    hook_event_name: 'PreToolUse',
    tool_name: c.tool,
    tool_input: fill(c.input, h),
  };
  const res = await http({
    port: host.port,
    path: '/hooks/claude/pre-tool-use',
    method: 'POST',
    headers: { Authorization: `Bearer ${host.agentToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(input),
  });
  if (res.status !== 200) return { decision: 'unreadable', reason: `HTTP ${res.status}: ${res.body.slice(0, 300)}` };
  return readAnswer(res.body);
}

// ---- the run -------------------------------------------------------------------------------------

const results = new Map<string, Record<Level, Answer>>();
const homes: FakeHome[] = [];
const hosts: RunningHost[] = [];

const accepts = (expected: string, got: string) => expected.split('|').includes(got);
const passed = (c: Case, level: Level) => accepts(c[level], results.get(c.id)![level].decision);

async function stop(h: RunningHost): Promise<void> {
  if (h.child.exitCode !== null || h.child.signalCode !== null) return;
  const exited = new Promise((resolve) => h.child.once('exit', resolve));
  h.child.kill('SIGTERM');
  await exited;
}

beforeAll(async () => {
  const answers = new Map<string, Partial<Record<Level, Answer>>>();
  for (const symlinked of [false, true]) {
    const mine = cases.filter((c) => (c.home === 'symlinked') === symlinked);
    const fake = makeFakeHome(symlinked);
    homes.push(fake);
    const host = await startHost(fake);
    hosts.push(host);
    for (const level of LEVELS) {
      await operator(host, 'settings.update', { autonomy: level, mode: 'dry-run', hookAsk: 'agent' });
      // A few at a time: the host judges them concurrently, as it would a busy agent's calls.
      for (let i = 0; i < mine.length; i += 8) {
        const batch = mine.slice(i, i + 8);
        const got = await Promise.all(batch.map((c, j) => hook(host, c, fake, i + j)));
        batch.forEach((c, j) => answers.set(c.id, { ...answers.get(c.id), [level]: got[j] }));
      }
    }
    await stop(host);
  }
  for (const [id, a] of answers) results.set(id, a as Record<Level, Answer>);
}, 240_000);

afterAll(async () => {
  for (const h of hosts) await stop(h);
  for (const h of homes) rmSync(h.root, { recursive: true, force: true });
  if (results.size !== cases.length) return;
  const total = cases.length;
  const rate = (level: Level) => {
    const ok = cases.filter((c) => passed(c, level)).length;
    return `${level} ${ok}/${total} (${((100 * ok) / total).toFixed(1)}%)`;
  };
  const misses = Object.keys(knownMisses.misses).length;
  // Every answer, for whoever updates known-misses.json: GATEHOUSE_CORPUS_REPORT=out.json.
  const report = process.env.GATEHOUSE_CORPUS_REPORT;
  if (report) {
    const rows = cases.map((c) => ({ id: c.id, class: c.class, tool: c.tool, input: c.input, expected: { supervised: c.supervised, full: c.full }, got: results.get(c.id), pass: { supervised: passed(c, 'supervised'), full: passed(c, 'full') } }));
    writeFileSync(report, JSON.stringify(rows, null, 1));
  }
  // The measuring stick of issue #13, printed where the test output shows it.
  console.log(`security corpus: ${rate('supervised')}, ${rate('full')}; ${misses} known misses`);
});

describe('security corpus: the fixtures themselves', () => {
  it('has at least 200 Bash commands and 60 other tool inputs, ids unique, ≥ 30% ordinary work', () => {
    const ids = new Set(cases.map((c) => c.id));
    expect(ids.size, 'case ids must be unique').toBe(cases.length);
    expect(cases.filter((c) => c.tool === 'Bash').length).toBeGreaterThanOrEqual(200);
    expect(cases.filter((c) => c.tool !== 'Bash').length).toBeGreaterThanOrEqual(60);
    expect(cases.filter((c) => c.class === 'ordinary').length / cases.length).toBeGreaterThanOrEqual(0.3);
    for (const c of cases) {
      for (const level of LEVELS) {
        expect(c[level].split('|').every((d) => d === 'allow' || d === 'ask' || d === 'deny'), `${c.id}: ${level} must be allow, ask or deny (or several joined by |)`).toBe(true);
      }
    }
  });

  it('lists only cases that exist as known misses, each with levels and a reason', () => {
    for (const [id, m] of Object.entries(knownMisses.misses)) {
      expect(cases.some((c) => c.id === id), `known miss ${id} names no case; remove it from known-misses.json`).toBe(true);
      expect(m.levels.length > 0 && m.levels.every((l) => LEVELS.includes(l)), `known miss ${id}: levels must name supervised and/or full`).toBe(true);
      expect(m.why.trim().length, `known miss ${id}: say why in one line`).toBeGreaterThan(0);
    }
  });
});

const short = (c: Case) => {
  const s = typeof c.input.command === 'string' ? c.input.command : JSON.stringify(c.input);
  const one = s.replace(/\s+/g, ' ');
  return one.length > 70 ? `${one.slice(0, 67)}...` : one;
};

describe('security corpus: each call at supervised and at full autonomy (real host, HTTP hook, dry-run)', () => {
  for (const c of cases) {
    it(`${c.id} ${c.tool}: ${short(c)}`, () => {
      const r = results.get(c.id);
      expect(r, 'the host answered every case').toBeDefined();
      const miss = knownMisses.misses[c.id];
      // Both levels are judged before asserting, so a failure names every level that is wrong.
      const wrong: string[] = [];
      for (const level of LEVELS) {
        const got = r![level];
        const where = `${level}: expected ${c[level]}, got ${got.decision} (${got.reason.slice(0, 300)})`;
        if (miss?.levels.includes(level)) {
          if (passed(c, level)) wrong.push(`${where}: this known miss now passes; remove ${level} from its entry in known-misses.json (${miss.why})`);
        } else if (!passed(c, level)) {
          wrong.push(where);
        }
      }
      expect(wrong, `${c.id} [${c.class}]`).toEqual([]);
    });
  }
});
