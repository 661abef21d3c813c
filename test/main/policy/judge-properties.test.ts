// Properties of the judge (issue #13): whatever shell-like text an agent sends, extraction, the
// built-in rules and autonomy answer with a well-formed decision, never a crash, holding the host's
// thread at most 50 ms; and a command that names ~/.ssh/id_rsa as an argument of a program that
// reads it is never allowed, even at full autonomy, whatever surrounds it.
//
// The time properties judge as the gateway does: GuardedExtractor (on the calling thread under its
// deadline, else in its worker) → evaluatePolicy → decideCall. The 50 ms is the host's thread's
// time: a command the grammar is slow on (error recovery on some garbage is quadratic) is handed
// to the worker, where only that agent waits for it. The other properties judge in-process, as
// bench/decision-latency.ts does: extract → evaluatePolicy → decideCall. All of them run against
// a temporary home with a real (dummy) key, so symlink resolution and globbing meet real files. The commands come from a small grammar of shell pieces (words, quotes, $(), backticks,
// pipes, redirects, globs, braces, here-docs, unicode, long runs), each at most 4 KB.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extract, initExtractor } from '../../../main/policy/extract/index.js';
import { GuardedExtractor } from '../../../main/policy/extract/guarded-extract.js';
import { clearShellCache } from '../../../main/policy/extract/shell-parse.js';
import { buildRuleSet, compileBuiltinRules, evaluatePolicy, type RuleSet } from '../../../main/policy/rules/index.js';
import { Autonomy, decideCall, type FinalDecision } from '../../../main/policy/autonomy.js';
import { OPERATIONS, type Extraction, type ToolCall } from '../../../main/policy/types.js';
import { repoRoot } from '../../support/cli.js';

const MAX_MS = 50;
const MAX_BYTES = 4096;

let root = '';
let home = '';
let rules: RuleSet;
let guard: GuardedExtractor;
const full = new Autonomy({ level: 'full' });
const supervised = new Autonomy({ level: 'supervised' });

beforeAll(async () => {
  await initExtractor();
  root = mkdtempSync(join(tmpdir(), 'gatehouse-judge-props-'));
  home = join(root, 'home');
  mkdirSync(join(home, '.ssh'), { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_rsa'), 'dummy key\n', { mode: 0o600 });
  mkdirSync(join(home, 'work', 'proj', 'src'), { recursive: true });
  mkdirSync(join(home, '.config'), { recursive: true });
  writeFileSync(join(home, 'work', 'proj', 'src', 'index.ts'), 'export {};\n');
  const ctx = { home, caseInsensitive: false };
  rules = buildRuleSet(compileBuiltinRules({ ...ctx, gatehouseHome: join(home, '.config', 'gatehouse') }), []);
  guard = new GuardedExtractor({ home });
  // Warm-up: the first calls pay for JIT compilation and the parser's first allocations, which is
  // start-up cost, not the per-call cost the 50 ms bound is about.
  for (let i = 0; i < 50; i++) judgeOnce(call('Bash', { command: `cat src/index.ts | grep -n x > /tmp/o${i} && echo "$(ls ~)"` }), full);
});

afterAll(async () => {
  await guard?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

function call(tool: string, args: Record<string, unknown>): ToolCall {
  return { id: 'c1', agent: 'prop', session: 's1', tool, arguments: args, cwd: join(home, 'work', 'proj'), source: 'hook', receivedAt: 0 };
}

interface Judged {
  x: Extraction;
  d: FinalDecision;
  ms: number;
}

function judgeOnce(c: ToolCall, autonomy: Autonomy): Judged {
  const t0 = performance.now();
  const x = extract(c, { home });
  const d = decideCall({ call: c, extraction: x, policy: evaluatePolicy(x, c, { rules }), autonomy });
  return { x, d, ms: performance.now() - t0 };
}

/** Crashes of the judge known today (fixtures/security-corpus/known-misses.json), tolerated by message until fixed. */
interface KnownCrash {
  tool: string;
  input: Record<string, unknown>;
  match: string;
  why: string;
}
const knownCrashes = (JSON.parse(readFileSync(join(repoRoot, 'test', 'fixtures', 'security-corpus', 'known-misses.json'), 'utf8')) as { judgeCrashes?: KnownCrash[] }).judgeCrashes ?? [];
const knownCrash = (err: unknown) => knownCrashes.find((k) => new RegExp(k.match).test(String((err as Error)?.message ?? err)));
let toleratedCrashes = 0;

/** judgeOnce, except that a crash listed as known is counted and answered as the pipeline does: deny. */
function judgeTolerant(c: ToolCall, autonomy: Autonomy): Judged | null {
  try {
    return judgeOnce(c, autonomy);
  } catch (err) {
    if (!knownCrash(err)) throw err;
    toleratedCrashes++;
    return null;
  }
}

interface Guarded extends Judged {
  /** The guard handed the call to its worker (its time there is not the host's thread's). */
  inWorker: boolean;
}

/** Judges a call as the gateway does; `ms` is the time the host's thread spent on it. */
async function judgeGuardedOnce(c: ToolCall, autonomy: Autonomy): Promise<Guarded> {
  // Every attempt parses afresh: a retry answered from the parse cache would time less work.
  clearShellCache();
  const t0 = performance.now();
  const pending = guard.extract(c);
  let ms = performance.now() - t0;
  const inWorker = pending instanceof Promise;
  const x = await pending;
  const t1 = performance.now();
  const d = decideCall({ call: c, extraction: x, policy: evaluatePolicy(x, c, { rules }), autonomy });
  ms += performance.now() - t1;
  return { x, d, ms, inWorker };
}

/**
 * judgeGuardedOnce, and a call over the bound is judged up to four more times and the fastest time
 * kept: a slow (say quadratic) input is slow every time, while a garbage collection or a stall of
 * this shared machine's scheduler hits one run, and is not the judge's cost. A known crash is
 * counted, as in judgeTolerant.
 */
async function judgeGuarded(c: ToolCall, autonomy: Autonomy): Promise<Guarded | null> {
  try {
    const first = await judgeGuardedOnce(c, autonomy);
    let ms = first.ms;
    for (let i = 0; i < 4 && ms > MAX_MS; i++) ms = Math.min(ms, (await judgeGuardedOnce(c, autonomy)).ms);
    return { ...first, ms };
  } catch (err) {
    if (!knownCrash(err)) throw err;
    toleratedCrashes++;
    return null;
  }
}


/** The shape every caller of the judge relies on; a message naming what is wrong, or null. */
function malformed(j: Judged): string | null {
  const { x, d } = j;
  if (!['allow', 'ask', 'deny'].includes(d.decision)) return `decision ${JSON.stringify(d.decision)}`;
  if (typeof d.reason !== 'string' || d.reason.trim() === '') return 'empty reason';
  if (!d.decider || !['rule', 'checker', 'autonomy', 'grant', 'operator', 'error'].includes(d.decider.kind)) return `decider ${JSON.stringify(d.decider)}`;
  if (!Array.isArray(x.operations) || !x.operations.every((o) => (OPERATIONS as readonly string[]).includes(o))) return `operations ${JSON.stringify(x.operations)}`;
  if (!Array.isArray(x.paths) || !x.paths.every((p) => typeof p === 'string' && p.startsWith('/'))) return `paths ${JSON.stringify(x.paths).slice(0, 200)}`;
  if (!Array.isArray(x.hosts) || !x.hosts.every((h) => typeof h === 'string')) return `hosts ${JSON.stringify(x.hosts).slice(0, 200)}`;
  if (typeof x.evasive !== 'boolean' || !Array.isArray(x.evasiveReasons)) return 'evasive flag or reasons';
  if (x.evasive && d.decision === 'allow') return 'an evasive call was allowed';
  return null;
}

// ---- the grammar ---------------------------------------------------------------------------------

const programs = ['cat', 'grep', 'rg', 'find', 'tar', 'awk', 'sed', 'git', 'curl', 'wget', 'python3', 'node', 'perl', 'sh', 'bash', 'eval', 'echo', 'ls', 'rm', 'cp', 'mv', 'jq', 'xargs', 'fold', 'env', 'timeout', 'sudo', 'exec', 'source', 'tee', 'dd', 'base64', 'frobnicate', './run.sh', '/bin/cat'];
const flagWords = ['-r', '-rf', '-la', '-c', '-e', '-n', '-o', '--output=x', '-C', '--', '-exec', '{}', '+', '\\;', '-O', '--no-index', '-i', '-x'];
const pathWords = ['~', '~/', '~/.ssh', '~/.ss?/id_rsa', '~/.{ssh,x}/id_rsa', '~/.config/gateh*/operator-token', '/', '/*', '~/*', '.', '..', '../..', 'src/*.ts', '/etc/shadow', '/proc/1/environ', '/dev/tcp/127.0.0.1/80', '$HOME/.aws/credentials', '${HOME}', '.env', 'file:///etc/passwd', 'http://169.254.169.254/', 'https://1.1.1.1/x', 'http://0x7f.1/', '[a-z]*', '{a,b,c}', '{1..9}', '**/*'];
const plainWord = fc.stringMatching(/^[a-zA-Z0-9_./=:,@%+-]{1,12}$/);
const unicodeWord = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 });
const anyChars = fc.string({ unit: 'binary', maxLength: 24 });

const word: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: plainWord },
  { weight: 3, arbitrary: fc.constantFrom(...pathWords) },
  { weight: 2, arbitrary: fc.constantFrom(...flagWords) },
  { weight: 1, arbitrary: unicodeWord },
  { weight: 1, arbitrary: plainWord.map((w) => `'${w} ${w}'`) },
  { weight: 1, arbitrary: plainWord.map((w) => `"${w} $${w.replace(/[^a-zA-Z_]/g, '') || 'X'}"`) },
  { weight: 1, arbitrary: plainWord.map((w) => `$'\\x${(w.charCodeAt(0) % 0x5f + 0x20).toString(16)}'`) },
  { weight: 1, arbitrary: fc.constantFrom('$IFS', '${IFS}', '$(echo x)', '`id`', '$((1+2))', '$1', '$@', '*', '?', '!', '&', '#', '\\', '"', "'", '(', ')', '{', '}') },
  { weight: 1, arbitrary: anyChars },
);

const simple: fc.Arbitrary<string> = fc
  .tuple(fc.option(fc.constantFrom('X=1 ', 'IFS=, ', 'LD_PRELOAD=/tmp/x.so ', 'alias c=cat; ', 'f() { cat "$1"; }; '), { nil: '' }), fc.oneof(fc.constantFrom(...programs), plainWord), fc.array(word, { maxLength: 6 }))
  .map(([prefix, prog, args]) => `${prefix}${[prog, ...args].join(' ')}`);

const redirect = fc.constantFrom('', ' > out.txt', ' >> ~/.bashrc', ' < /etc/passwd', ' 2>&1', ' <<< "text"', ' &>/dev/null', ' >&3', ' 3<>/dev/tcp/127.0.0.1/7411');

const command: fc.Arbitrary<string> = fc.letrec<{ cmd: string }>((tie) => ({
  cmd: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.tuple(simple, redirect).map(([s, r]) => s + r),
    fc.tuple(tie('cmd'), fc.constantFrom(' | ', ' && ', ' || ', '; ', ' & ', ' |& ', '\n'), tie('cmd')).map(([a, op, b]) => `${a}${op}${b}`),
    tie('cmd').map((c) => `$(${c})`),
    tie('cmd').map((c) => `(${c})`),
    tie('cmd').map((c) => `{ ${c}; }`),
    tie('cmd').map((c) => `\`${c}\``),
    tie('cmd').map((c) => `bash -c '${c.replace(/'/g, '')}'`),
    tie('cmd').map((c) => `sh <<'EOF'\n${c}\nEOF`),
    tie('cmd').map((c) => `cat <<EOF | sh\n${c}\nEOF`),
    fc.tuple(tie('cmd'), fc.integer({ min: 2, max: 60 }), fc.constantFrom('|', ';', '&&', ' ')).map(([c, n, sep]) => Array(n).fill(c).join(sep)),
    fc.tuple(fc.constantFrom('a', 'x ', '$(', '"', "'", '{', '${', '\\\n', '\u202e', '\u200b', '\u0000'), fc.integer({ min: 10, max: 1500 })).map(([s, n]) => s.repeat(n)),
    fc.tuple(tie('cmd'), fc.constantFrom('if true; then ', 'while false; do ', 'for f in *; do ', 'case x in *) ')).map(([c, head]) => `${head}${c}; ${head.startsWith('if') ? 'fi' : head.startsWith('case') ? ';; esac' : 'done'}`),
  ),
})).cmd;

const bounded = (s: string) => Buffer.byteLength(s) <= MAX_BYTES;
const shellText = command.filter(bounded);

// ---- properties ----------------------------------------------------------------------------------

describe('the judge on generated input (fast-check, in-process)', () => {
  it(`never crashes, always answers a well-formed decision, holding the host's thread at most ${MAX_MS} ms per call (Bash and the shell tool)`, async () => {
    const times: number[] = [];
    let inWorker = 0;
    await fc.assert(
      fc.asyncProperty(shellText, fc.constantFrom('Bash', 'shell'), fc.boolean(), async (cmd, tool, atFull) => {
        const j = await judgeGuarded(call(tool, { command: cmd }), atFull ? full : supervised);
        if (!j) return;
        times.push(j.ms);
        if (j.inWorker) inWorker++;
        const bad = malformed(j);
        if (bad) throw new Error(`malformed decision (${bad}) for ${JSON.stringify(cmd).slice(0, 300)}`);
        if (j.ms > MAX_MS) throw new Error(`judging held the host's thread ${j.ms.toFixed(1)} ms (> ${MAX_MS}) for ${cmd.length} chars: ${JSON.stringify(cmd).slice(0, 300)}`);
      }),
      { numRuns: 400 },
    );
    const max = Math.max(...times);
    console.log(`judge properties: ${times.length} generated commands judged, ${inWorker} of them in the worker; the host's thread max ${max.toFixed(2)} ms, p50 ${quantile(times, 0.5).toFixed(3)} ms; ${toleratedCrashes} known crashes so far`);
    expect(max).toBeLessThanOrEqual(MAX_MS);
  });

  it(`never crashes on generated file-tool arguments (paths up to 4 KB, odd types), holding the host's thread at most ${MAX_MS} ms`, async () => {
    const pathish = fc.oneof(fc.constantFrom(...pathWords), fc.string({ unit: 'grapheme', maxLength: 40 }), fc.array(fc.constantFrom('a/', '../', './', '~/', '*/', '.ssh/', '{x,y}/', '\u202e'), { maxLength: 1000 }).map((a) => a.join('')));
    const value = fc.oneof(pathish, fc.array(pathish, { maxLength: 5 }), fc.integer(), fc.constant(null), fc.boolean(), fc.dictionary(fc.string({ maxLength: 5 }), pathish, { maxKeys: 3 }));
    const tools = ['Read', 'Write', 'Edit', 'Grep', 'Glob', 'LS', 'WebFetch', 'NotebookEdit', 'mcp__fs__read_multiple_files', 'mcp__fs__move_file', 'mcp__x__do_thing'];
    const keys = ['file_path', 'path', 'paths', 'pattern', 'url', 'source', 'destination', 'notebook_path', 'cwd', 'recursive', 'content', 'glob'];
    let max = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...tools), fc.dictionary(fc.constantFrom(...keys), value, { maxKeys: 4 }).filter((a) => bounded(JSON.stringify(a))), fc.boolean(), async (tool, args, atFull) => {
        const j = await judgeGuarded(call(tool, args), atFull ? full : supervised);
        if (!j) return;
        max = Math.max(max, j.ms);
        const bad = malformed(j);
        if (bad) throw new Error(`malformed decision (${bad}) for ${tool} ${JSON.stringify(args).slice(0, 300)}`);
        if (j.ms > MAX_MS) throw new Error(`judging held the host's thread ${j.ms.toFixed(1)} ms (> ${MAX_MS}) for ${tool} ${JSON.stringify(args).slice(0, 300)}`);
      }),
      { numRuns: 300 },
    );
    expect(max).toBeLessThanOrEqual(MAX_MS);
  });

  it('never allows, at full autonomy, a command where a file-reading program is given ~/.ssh/id_rsa', () => {
    // Programs that read the files they are given, each with a head (program, options, and for
    // grep the pattern) after which every argument is a file.
    const readers = ['cat', 'cat -n', 'cat -A --', 'head -n 5', 'head -c 10', 'tail -n 5', 'less', 'grep -e x', 'grep -n -e x', 'grep -r -e x', 'grep x', 'base64 -w0', 'xxd -p', 'strings -a', 'sort -u', 'wc -l', 'od -c', 'nl', 'tac', 'md5sum', 'cp -p', 'diff -u', 'tar -cf /tmp/x.tar', 'tar -czf /tmp/x.tgz'];
    const otherArg = fc.constantFrom('README.md', 'src/index.ts', '/tmp/out', 'notes.txt', '/dev/null');
    const readerCommand = fc
      .tuple(fc.constantFrom(...readers), fc.array(otherArg, { maxLength: 3 }), fc.nat(), fc.constantFrom('~/.ssh/id_rsa', '$HOME/.ssh/id_rsa', '"$HOME/.ssh/id_rsa"', "~/'.ssh'/id_rsa", '~/.ssh/../.ssh/id_rsa', '{HOME}/.ssh/id_rsa'))
      .map(([head, others, at, target]) => {
        const args: string[] = [...others];
        args.splice(at % (args.length + 1), 0, target.replace('{HOME}', home));
        return `${head} ${args.join(' ')}`;
      });
    // Ordinary commands around it: none of them can stop the reader from running.
    const neighbour = fc.constantFrom('ls', 'git status', 'echo ok', 'pwd', 'date', 'npm test', 'true', 'grep -n x src/index.ts');
    const wrapped = fc
      .tuple(fc.array(neighbour, { maxLength: 3 }), readerCommand, fc.array(neighbour, { maxLength: 3 }), fc.constantFrom(' && ', '; ', ' | ', ' || '), fc.constantFrom('%', '(%)', '{ %; }', 'echo "$(%)"', 'x=$(%)', '% | base64', '% > /tmp/o', 'nohup % &', 'time %', 'timeout 5 %', 'env %', 'sudo %'))
      .map(([before, reader, after, op, shape]) => [...before, shape.replace('%', reader), ...after].join(op));
    fc.assert(
      fc.property(wrapped, (cmd) => {
        const j = judgeTolerant(call('Bash', { command: cmd }), full);
        if (j && j.d.decision === 'allow') throw new Error(`allowed at full autonomy: ${cmd}\n(${j.d.reason}; paths ${JSON.stringify(j.x.paths)})`);
      }),
      { numRuns: 300 },
    );
  });
});

describe('protected paths however they are spelled', () => {
  it('never allows, at full autonomy, a read of ~/.ssh/id_rsa spelled with ./, //, detours through real folders, or relative to the project', () => {
    // Detours go through folders that exist, so the kernel resolves the spelling to the key too.
    const step = fc.constantFrom('./', '/', 'work/../', '.ssh/../', 'work/proj/../../', '.config/../');
    const spelled = fc.tuple(fc.constantFrom('{HOME}/', '~/', '$HOME/', '../../'), fc.array(step, { maxLength: 4 }), fc.constantFrom('.ssh/', '.ssh//', './.ssh/./'), fc.constantFrom('id_rsa', './id_rsa'))
      .map(([start, steps, dir, file]) => start + steps.join('') + dir + file);
    const asCall = fc.tuple(spelled, fc.constantFrom('Bash', 'Read', 'mcp__fs__read_file', 'shell')).map(([path, tool]): ToolCall => {
      const p = path.replace('{HOME}', home);
      if (tool === 'Bash' || tool === 'shell') return call(tool, { command: `cat ${p}` });
      // File tools get no shell expansion: only spellings a file tool would resolve itself.
      const literal = p.replace(/^\$HOME\//, `${home}/`);
      return call(tool, tool === 'Read' ? { file_path: literal } : { path: literal });
    });
    fc.assert(
      fc.property(asCall, (c) => {
        const j = judgeTolerant(c, full);
        if (j && j.d.decision === 'allow') throw new Error(`allowed at full autonomy: ${c.tool} ${JSON.stringify(c.arguments)}\n(${j.d.reason}; paths ${JSON.stringify(j.x.paths)})`);
      }),
      { numRuns: 300 },
    );
  });
});

describe('protected files reached through cd', () => {
  it('never allows, at full autonomy, cd into part of a protected path followed by a read of the rest', () => {
    const targets = ['.ssh/id_rsa', '.aws/credentials', '.config/gatehouse/operator-token', '.netrc', '.kube/config', '.gnupg/private-keys-v1.d/k.key'];
    const readers = ['cat', 'head -n 3', 'base64', 'cp -t /tmp', 'tar -cf /tmp/x.tar', 'grep -e x'];
    const shapes = ['cd A && R B', 'cd A; R B', 'pushd A >/dev/null; R B', '(cd A && R B)', 'cd A && { R B; }', 'cd A || exit 1; R B', 'cd "A" && R "./B"'];
    const split = fc.tuple(fc.constantFrom(...targets), fc.nat(), fc.boolean()).map(([target, at, fromProject]) => {
      const parts = target.split('/');
      const k = at % parts.length; // 0: cd to the home itself
      const rel = parts.slice(k).join('/');
      const dir = parts.slice(0, k).join('/');
      // From the project folder (~/work/proj) the home is ../..; otherwise ~ or $HOME.
      const base = fromProject ? '../..' : at % 2 ? '$HOME' : '~';
      return { cdTo: dir ? `${base}/${dir}` : base, rel };
    });
    const command = fc.tuple(split, fc.constantFrom(...readers), fc.constantFrom(...shapes)).map(([{ cdTo, rel }, reader, shape]) =>
      shape.replace('A', shape.includes('"A"') && cdTo.startsWith('~') ? cdTo.replace('~', '$HOME') : cdTo).replace('R', reader).replace('B', rel),
    );
    fc.assert(
      fc.property(command, (cmd) => {
        const j = judgeTolerant(call('Bash', { command: cmd }), full);
        if (j && j.d.decision === 'allow') throw new Error(`allowed at full autonomy: ${cmd}\n(${j.d.reason}; paths ${JSON.stringify(j.x.paths)})`);
      }),
      { numRuns: 300 },
    );
  });
});

describe('known crashes of the judge', () => {
  it('each listed crash still happens (a fixed one must be removed from known-misses.json)', () => {
    for (const k of knownCrashes) {
      let thrown: unknown = null;
      try {
        judgeOnce(call(k.tool, JSON.parse(JSON.stringify(k.input).replaceAll('{HOME}', home)) as Record<string, unknown>), full);
      } catch (err) {
        thrown = err;
      }
      expect(thrown === null ? 'no crash' : String((thrown as Error).message), `${k.tool} ${JSON.stringify(k.input)} (${k.why}): fixed? remove it from judgeCrashes in known-misses.json`).toMatch(new RegExp(k.match));
    }
  });
});

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0;
}
