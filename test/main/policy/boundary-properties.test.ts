// Property tests (fast-check) at every boundary where outside text or JSON enters Gatehouse
// (issue #14, deliverable 6): plugin manifests in each format the registry reads, checker NDJSON
// lines, Claude Code hook input (parsed, and POSTed to a real host's hook route), MCP tool
// arguments (raw JSON-RPC to a real host's /mcp), policy.yaml, settings.json, and the audit
// search query language.
//
// The property everywhere: nothing throws past the boundary, and every input gets an answer or a
// precise error, one that names the field (or the line) and says what to do. Inputs are arbitrary
// strings, arbitrary JSON, and valid examples mutated by dropping, renaming or retyping one field
// at any depth. numRuns stays moderate so the file runs in seconds.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { stringify as toToml } from 'smol-toml';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseManifestSource, validateManifest, loadManifest } from '../../../main/registry/manifest/load-manifest.js';
import type { Problem } from '../../../main/registry/types.js';
import { LineSplitter } from '../../../main/checkers/line-splitter.js';
import { parseEnvelope } from '../../../main/checkers/checker-process.js';
import { parseEvaluateResult } from '../../../main/core/checker-protocol.js';
import { parseHookInput } from '../../../main/gateway/claude-hook.js';
import { parsePolicyText, type LoadResult as PolicyLoadResult } from '../../../main/policy/rules/load.js';
import { extract, initExtractor } from '../../../main/policy/extract/index.js';
import { readSettingsFile, SettingsStore } from '../../../main/gateway/settings-store.js';
import { settingsSchema } from '../../../shared/contract.js';
import { AuditStore } from '../../../main/audit/audit-store.js';
import { AuditQuery } from '../../../main/audit/audit-query.js';
import { OperationError } from '../../../main/core/operation-error.js';
import { repoRoot } from '../../support/cli.js';
import { MAX_YAML_NESTING } from '../../../main/yaml-nesting.js';
import { appendRule } from '../../../main/policy/policy-file.js';
import { createHost, type Host } from '../../../main/host/create-host.js';
import { listenForConsolesAndAgents, type Listening } from '../../../main/shells/serve/run-serve.js';
import { http } from '../../support/net.js';

const RUNS = 200;

let root = '';
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'gatehouse-boundary-props-'));
  await initExtractor();
});
afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

// ---- mutations of valid examples ------------------------------------------------------------------

type Key = string | number;
type Mutation = { op: 'drop' | 'rename' | 'retype'; path: Key[]; to?: string; value?: unknown };

/** Every path to a value inside `v` (object keys and array indexes), the root excluded. */
function pathsOf(v: unknown, prefix: Key[] = []): Key[][] {
  if (Array.isArray(v)) return v.flatMap((x, i) => [[...prefix, i], ...pathsOf(x, [...prefix, i])]);
  if (v && typeof v === 'object') return Object.entries(v).flatMap(([k, x]) => [[...prefix, k], ...pathsOf(x, [...prefix, k])]);
  return [];
}

const typeOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/** A copy of `v` with one mutation applied. */
function mutate(v: unknown, m: Mutation): unknown {
  const copy = structuredClone(v) as Record<Key, unknown>;
  let parent: Record<Key, unknown> = copy;
  for (const k of m.path.slice(0, -1)) parent = parent[k] as Record<Key, unknown>;
  const last = m.path.at(-1)!;
  if (m.op === 'drop') {
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete parent[last];
  } else if (m.op === 'rename' && !Array.isArray(parent)) {
    const value = parent[last];
    delete parent[last];
    parent[m.to!] = value;
  } else {
    parent[last] = m.value;
  }
  return copy;
}

/** Drop, rename or retype (to a value of another JSON type) one field of `valid`, at any depth. */
function mutations(valid: unknown): fc.Arbitrary<{ value: unknown; m: Mutation }> {
  const paths = pathsOf(valid);
  return fc
    .record({
      path: fc.constantFrom(...paths),
      op: fc.constantFrom('drop' as const, 'rename' as const, 'retype' as const),
      to: fc.oneof(fc.string({ minLength: 1, maxLength: 12 }), fc.constantFrom('nmae', 'Name', 'command ', 'toolz', 'rules_', 'type')),
      value: fc.jsonValue({ maxDepth: 2 }),
    })
    .filter(({ path, op, value, to }) => {
      let cur: unknown = valid;
      for (const k of path) cur = (cur as Record<Key, unknown>)[k];
      if (op === 'retype') return typeOf(value) !== typeOf(cur);
      if (op === 'rename') return typeof path.at(-1) === 'string' && to !== path.at(-1);
      return true;
    })
    .map((m) => ({ value: mutate(valid, m), m }));
}

/** The field a mutation touched, as the words an error about it would use. */
function fieldWords(m: Mutation): string[] {
  const last = m.path.at(-1)!;
  return typeof last === 'string' ? [last] : [String(m.path.at(-2) ?? last)];
}

const anyText = fc.oneof(
  fc.string({ maxLength: 300 }),
  fc.string({ unit: 'grapheme', maxLength: 200 }),
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v) ?? ''),
);

// ---- plugin manifests ------------------------------------------------------------------------------

const MANIFEST_FIXTURES: [dir: string, file: string][] = [
  [join(repoRoot, 'examples', 'plugins', 'hello'), 'tool.toml'],
  [join(repoRoot, 'test', 'fixtures', 'manifests', 'checker-toml'), 'gatehouse.toml'],
  [join(repoRoot, 'test', 'fixtures', 'manifests', 'multi-toml'), 'gatehouse.toml'],
  [join(repoRoot, 'test', 'fixtures', 'manifests', 'multi-yaml'), 'gatehouse.yaml'],
  [join(repoRoot, 'test', 'fixtures', 'manifests', 'checker-yaml'), 'gatehouse.yml'],
  [join(repoRoot, 'test', 'fixtures', 'manifests', 'mcp-yaml'), 'gatehouse.yaml'],
  [join(repoRoot, 'test', 'fixtures', 'manifests', 'multi-json'), 'gatehouse.json'],
  [join(repoRoot, 'test', 'fixtures', 'manifests', 'mcp-json'), 'gatehouse.json'],
];

function serialize(file: string, v: unknown): string | null {
  try {
    if (file.endsWith('.json')) return JSON.stringify(v, null, 2);
    if (file.endsWith('.toml')) return v && typeof v === 'object' && !Array.isArray(v) ? toToml(v as Record<string, unknown>) : null;
    return toYaml(v);
  } catch {
    // TOML has no null, and smol-toml refuses some shapes: not a manifest anyone can write.
    return null;
  }
}

function parseFixture(dir: string, file: string): unknown {
  const parsed = parseManifestSource(file, readFileSync(join(dir, file), 'utf8'));
  expect(parsed.problems).toEqual([]);
  return parsed.raw;
}

/** Parse and validate as the registry does; throws only if the boundary does. */
function checkManifest(dir: string, file: string, text: string): { manifest: unknown; problems: Problem[] } {
  const parsed = parseManifestSource(file, text);
  if (parsed.problems.length) return { manifest: null, problems: parsed.problems };
  return validateManifest(parsed.raw, { dir, manifestFile: file, source: text });
}

/** An error a plugin author can act on: a sentence, a stable code, and where (line or field) unless it is about the whole file. */
function expectPreciseProblems(r: { manifest: unknown; problems: Problem[] }): void {
  const errors = r.problems.filter((p) => p.severity === 'error');
  if (r.manifest === null) expect(errors.length).toBeGreaterThan(0);
  else expect(errors).toEqual([]);
  for (const p of r.problems) {
    expect(p.message.length).toBeGreaterThan(15);
    expect(p.code).toMatch(/^[a-z]+\.[a-z-]+/);
    if (p.line !== undefined) expect(p.line).toBeGreaterThanOrEqual(1);
    if (p.column !== undefined) expect(p.column).toBeGreaterThanOrEqual(1);
  }
}

describe('plugin manifests (tool.toml, gatehouse.toml, gatehouse.yaml/.yml, gatehouse.json)', () => {
  it('arbitrary text in every manifest file name gets a manifest or problems with a place, never a throw', () => {
    const dir = MANIFEST_FIXTURES[0]![0];
    fc.assert(
      fc.property(fc.constantFrom('tool.toml', 'gatehouse.toml', 'gatehouse.yaml', 'gatehouse.yml', 'gatehouse.json'), anyText, (file, text) => {
        const r = checkManifest(dir, file, text);
        expectPreciseProblems(r);
        // A syntax error says where: line and column.
        for (const p of r.problems.filter((p) => p.code === 'manifest.syntax')) {
          expect(p.line).toBeGreaterThanOrEqual(1);
          expect(p.column).toBeGreaterThanOrEqual(1);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('arbitrary JSON values written in each syntax get a manifest or precise problems', () => {
    fc.assert(
      fc.property(fc.constantFrom(...MANIFEST_FIXTURES), fc.jsonValue({ maxDepth: 4 }), ([dir, file], v) => {
        const text = serialize(file, v);
        fc.pre(text !== null);
        expectPreciseProblems(checkManifest(dir, file, text!));
      }),
      { numRuns: RUNS },
    );
  });

  for (const [dir, file] of MANIFEST_FIXTURES) {
    it(`${dir.split('/').pop()}/${file} with one field dropped, renamed or retyped: a manifest, or an error naming that field`, () => {
      const valid = parseFixture(dir, file);
      expect(checkManifest(dir, file, serialize(file, valid)!).manifest).not.toBeNull();
      fc.assert(
        fc.property(mutations(valid), ({ value, m }) => {
          const text = serialize(file, value);
          fc.pre(text !== null);
          const r = checkManifest(dir, file, text!);
          expectPreciseProblems(r);
          if (r.manifest !== null) return;
          // At least one error points at the mutated field (its path, or its name in the sentence),
          // or at the command/file it named.
          const words = [...fieldWords(m), ...m.path.filter((k): k is string => typeof k === 'string'), ...(m.to ? [m.to] : [])];
          const named = r.problems.some((p) => p.path !== undefined || p.line !== undefined || words.some((w) => p.message.includes(w)));
          expect(named, JSON.stringify({ m, problems: r.problems })).toBe(true);
        }),
        { numRuns: 100 },
      );
    });
  }

  it('loadManifest reads mutated manifests from disk as the registry does, never throwing', () => {
    const dir = join(root, 'manifest-disk');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'hello.sh'), '#!/bin/sh\necho "{}"\n', { mode: 0o755 });
    const valid = parseFixture(MANIFEST_FIXTURES[0]![0], 'tool.toml');
    fc.assert(
      fc.property(mutations(valid), ({ value }) => {
        const text = serialize('tool.toml', value);
        fc.pre(text !== null);
        writeFileSync(join(dir, 'tool.toml'), text!);
        const r = loadManifest(dir);
        expectPreciseProblems(r);
      }),
      { numRuns: 60 },
    );
  });
});

// ---- deeply nested YAML (found by the properties above) ---------------------------------------------

/** YAML nested `n` collections deep, in one of the shapes YAML has. */
const deepYaml = fc.record({ n: fc.integer({ min: 1, max: 3000 }), shape: fc.constantFrom('flow-seq', 'flow-map', 'block-map', 'block-seq', 'mixed') }).map(({ n, shape }) => {
  switch (shape) {
    case 'flow-seq':
      return { n, text: `name: x\nconfig: ${'['.repeat(n)}${']'.repeat(n)}\n` };
    case 'flow-map':
      return { n, text: `name: x\nconfig: ${'{a: '.repeat(n)}1${'}'.repeat(n)}\n` };
    case 'block-map':
      // Each level one more space: n levels cost n²/2 bytes, so this shape stays under 1,000 levels.
      n = Math.min(n, 1000);
      return { n, text: `name: x\nconfig:\n${Array.from({ length: n }, (_, i) => `${' '.repeat(i + 1)}a:`).join('\n')} 1\n` };
    case 'block-seq':
      return { n, text: `name: x\nconfig:\n  ${'- '.repeat(n)}1\n` };
    default:
      return { n, text: `name: x\nconfig: ${'[{a: '.repeat(Math.ceil(n / 2))}1${'}]'.repeat(Math.ceil(n / 2))}\n` };
  }
});

describe('deeply nested YAML (manifests and policy.yaml)', () => {
  // Found here: past a few hundred levels yaml's composer overflows the stack, and parsing such a
  // text again aborted the whole process ("RegExpCompiler Allocation failed"), uncatchable. A
  // gatehouse.yaml in a plugin folder could so crash the host at discovery or on a rescan.
  it('a manifest or a policy nested thousands of levels deep is refused with its line, and parsing it again does not crash', () => {
    const dir = MANIFEST_FIXTURES[3]![0];
    const flow = `name: x\nconfig: ${'['.repeat(5000)}${']'.repeat(5000)}\n`;
    for (let i = 0; i < 3; i++) {
      const m = checkManifest(dir, 'gatehouse.yaml', flow);
      expect(m.manifest).toBeNull();
      expect(m.problems).toMatchObject([{ code: 'manifest.too-deep', line: 2, severity: 'error' }]);
      expect(m.problems[0]!.message).toMatch(new RegExp(`more than ${MAX_YAML_NESTING} levels deep`));
      const p = parsePolicyText(`version: 1\nrules: ${'['.repeat(5000)}${']'.repeat(5000)}\n`, 'policy.yaml', POLICY_CTX());
      expect(p.broken).toBe(true);
      expect(p.problems).toMatchObject([{ line: 2 }]);
      expect(p.problems[0]!.message).toMatch(/levels deep/);
      expect(() => appendRule(`rules: ${'['.repeat(5000)}${']'.repeat(5000)}\n`, parsePolicyText('rules:\n  - { name: r, actions: [read], decision: deny }\n', 'policy.yaml', POLICY_CTX()).rules[0]!)).toThrow(/levels deep/);
    }
    // The parser still works for everyone else.
    expect(checkManifest(dir, 'gatehouse.yaml', readFileSync(join(dir, 'gatehouse.yaml'), 'utf8')).manifest).not.toBeNull();
  });

  // Found here too: a gatehouse.json nested 20,000 levels deep loaded, but validating and locating
  // it held the event loop for seconds, on every discovery and rescan.
  it('a gatehouse.json nested thousands of levels deep is refused at once with its line and column', () => {
    const dir = MANIFEST_FIXTURES[6]![0];
    const text = `{\n  "name": "multi-json",\n  "config": ${'['.repeat(20_000)}${']'.repeat(20_000)}\n}`;
    const m = checkManifest(dir, 'gatehouse.json', text);
    expect(m.manifest).toBeNull();
    expect(m.problems).toMatchObject([{ code: 'manifest.too-deep', line: 3, column: 12 + MAX_YAML_NESTING, severity: 'error' }]);
    // Brackets inside strings are not nesting.
    expect(checkManifest(dir, 'gatehouse.json', readFileSync(join(dir, 'gatehouse.json'), 'utf8').replace('"File helpers."', `"${'['.repeat(500)}"`)).manifest).not.toBeNull();
  });

  it('any nesting depth in any shape is read or refused with a place, never a crash', () => {
    fc.assert(
      fc.property(deepYaml, ({ n, text }) => {
        const m = parseManifestSource('gatehouse.yaml', text);
        const p = parsePolicyText(text.replace('name: x\nconfig:', 'version: 1\nrules:'), 'policy.yaml', POLICY_CTX());
        if (n > MAX_YAML_NESTING) {
          expect(m.problems.map((x) => x.code)).toEqual(['manifest.too-deep']);
          expect(p.broken).toBe(true);
        }
        for (const x of m.problems) expect(x.line).toBeGreaterThanOrEqual(1);
        for (const x of p.problems) expect(x.line).toBeGreaterThanOrEqual(1);
      }),
      { numRuns: 100 },
    );
  });
});

// ---- checker NDJSON --------------------------------------------------------------------------------

describe('checker NDJSON lines', () => {
  it('the line splitter yields the same lines however the bytes are chunked, and stops once at the cap', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: 'grapheme', maxLength: 40 }).map((s) => s.replace(/\n/g, ' ')), { maxLength: 20 }),
        fc.array(fc.nat({ max: 64 }), { maxLength: 30 }),
        fc.integer({ min: 8, max: 200 }),
        (lines, cuts, cap) => {
          const bytes = Buffer.from(lines.map((l) => `${l}\n`).join(''), 'utf8');
          const got: string[] = [];
          const overflows: number[] = [];
          const splitter = new LineSplitter(cap, (l) => got.push(l), (n) => overflows.push(n));
          let at = 0;
          for (const c of cuts) {
            if (at >= bytes.length) break;
            splitter.push(bytes.subarray(at, Math.min(bytes.length, at + c + 1)));
            at += c + 1;
          }
          if (at < bytes.length) splitter.push(bytes.subarray(at));
          const firstLong = lines.findIndex((l) => Buffer.byteLength(l) > cap);
          if (firstLong === -1) {
            expect(got).toEqual(lines);
            expect(overflows).toEqual([]);
          } else {
            // Every line before the long one, then one overflow, then nothing.
            expect(got).toEqual(lines.slice(0, firstLong));
            expect(overflows).toHaveLength(1);
            expect(overflows[0]).toBeGreaterThan(cap);
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('every response line is a result, an error, blank, or garbage with a sentence quoting it; never a throw', () => {
    const line = fc.oneof(
      anyText,
      fc.record({ result: fc.jsonValue({ maxDepth: 2 }) }, { requiredKeys: [] }).map((o) => JSON.stringify(o)),
      fc.record({ result: fc.jsonValue({ maxDepth: 2 }), error: fc.jsonValue({ maxDepth: 2 }) }, { requiredKeys: [] }).map((o) => JSON.stringify(o)),
      fc.constantFrom('', '   ', '\r', 'null', '[]', '"ok"', '{"result":"ok"}', '{"error":"nope"}', '{"result":null,"error":null}', '{}', '{"__proto__":{"result":1}}'),
    );
    fc.assert(
      fc.property(line, (l) => {
        const e = parseEnvelope(l);
        if (e === null) {
          expect(l.trim()).toBe('');
          return;
        }
        if (e.kind === 'garbage') expect(e.message).toMatch(/wrote /);
        if (e.kind === 'error') expect(typeof e.error).toBe('string');
      }),
      { numRuns: RUNS },
    );
  });

  it('an evaluate result is allow, a block naming its rule, or malformed naming the field; never a throw', () => {
    const block = fc.record(
      { rule_name: fc.jsonValue({ maxDepth: 1 }), severity: fc.jsonValue({ maxDepth: 1 }), action: fc.jsonValue({ maxDepth: 1 }), message: fc.jsonValue({ maxDepth: 1 }) },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue({ maxDepth: 3 }), block), (result) => {
        const r = parseEvaluateResult(result);
        if (r.kind === 'allow') expect(result).toBeNull();
        else if (r.kind === 'block') {
          expect(typeof r.result.rule_name).toBe('string');
          expect(r.result.rule_name.trim()).not.toBe('');
          expect(r.result.message).not.toBe('');
        } else expect(r.message).toMatch(/rule_name|"message"|result must be null/);
      }),
      { numRuns: RUNS },
    );
  });
});

describe('checker NDJSON lines from a real checker process', () => {
  // The checker writes back, as its whole answer line, the text the call carries in
  // arguments.answer: whatever a checker could write reaches the real reader (line splitter,
  // envelope, evaluate result, crash and restart, breaker) through a real process.
  it('every answer line a checker writes ends in a decision for the call, never a throw', async () => {
    const dir = join(root, 'plugins', 'echo-answer');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'check.mjs'),
      [
        "import { createInterface } from 'node:readline';",
        "createInterface({ input: process.stdin, crlfDelay: Infinity }).on('line', (line) => {",
        '  const req = JSON.parse(line);',
        "  if (req.method !== 'evaluate') { process.stdout.write(JSON.stringify({ result: 'ok' }) + '\\n'); if (req.method === 'close') process.exit(0); return; }",
        "  process.stdout.write(String(req.params.arguments?.answer ?? '') + '\\n');",
        '});',
        '',
      ].join('\n'),
    );
    writeFileSync(join(dir, 'run.sh'), '#!/bin/sh\nexec node check.mjs\n', { mode: 0o755 });
    writeFileSync(join(dir, 'gatehouse.toml'), 'name = "echo-answer"\ndescription = "Answers what the call asks it to."\nkind = "checker"\ncommand = "run.sh"\n');
    const home = join(root, 'checker-home');
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, 'settings.json'), JSON.stringify({ autonomy: 'full' }));
    const host = createHost({ home, shell: 'serve', log: () => {}, projectDir: root, watch: false, pluginDirs: [join(root, 'plugins')] });
    try {
      await host.ready;
      await host.registry.enable('echo-answer', 'prop');
      // Found by the property below: the first calls after an operator enabled a checker were judged
      // without it while its pool started, so this block went unread and the call was allowed.
      const first = await host.gateway.call({ agent: 'prop', session: 's1', tool: 'probe_tool', arguments: { answer: '{"result":{"rule_name":"first","message":"Blocked at once."}}' }, source: 'api' }, { execute: false, ask: 'return' });
      expect(first).toMatchObject({ decision: 'deny', decider: { kind: 'checker', checker: 'echo-answer', rule: 'first' } });
      const answer = fc.oneof(
        fc.constantFrom('{"result":null}', '{"result":{"rule_name":"r","message":"no"}}', '{"result":{"rule_name":""}}', '{"error":"nope"}', '{}', '[]', 'null', '', '   ', '{"result":1,"error":2}'),
        fc.record({ result: fc.oneof(fc.constant(null), fc.jsonValue({ maxDepth: 2 })) }).map((o) => JSON.stringify(o)),
        fc.string({ maxLength: 80 }).map((t) => t.replace(/[\r\n]/g, ' ')),
      );
      const byChecker = { blocks: 0, failures: 0 };
      await fc.assert(
        fc.asyncProperty(answer, async (a) => {
          const r = await host.gateway.call({ agent: 'prop', session: 's1', tool: 'probe_tool', arguments: { answer: a }, source: 'api' }, { execute: false, ask: 'return' });
          if (r.decider.kind === 'checker') byChecker[r.decider.rule.startsWith('checker.') ? 'failures' : 'blocks']++;
          expect(['allow', 'deny', 'ask']).toContain(r.decision);
          expect(r.reason.length).toBeGreaterThan(5);
          // A blank line is no answer: the call then waits for the checker's timeout, and fails closed.
          if (r.decision === 'allow') expect(a.trim() === '' || /"result"\s*:\s*null/.test(a) || !/rule_name/.test(a)).toBe(true);
        }),
        { numRuns: 40 },
      );
      // The answers did reach the checker step: some blocked, some were the checker's own failures.
      expect(byChecker.blocks + byChecker.failures).toBeGreaterThan(0);
    } finally {
      await host.close('test done');
    }
  }, 120_000);
});

// ---- Claude Code hook input ------------------------------------------------------------------------

const VALID_HOOK = {
  session_id: 'sess-1',
  transcript_path: '/home/alice/.claude/projects/x/sess-1.jsonl',
  cwd: '/home/alice/work',
  hook_event_name: 'PreToolUse',
  tool_name: 'Read',
  tool_input: { file_path: '/home/alice/work/README.md', limit: 20 },
  tool_use_id: 'toolu_01',
  permission_mode: 'default',
};

describe('Claude Code hook input', () => {
  it('arbitrary text and JSON get an input or a sentence saying what Gatehouse expects; never a throw', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const r = parseHookInput(text);
        if (!r.ok) expect(r.message).toMatch(/^The hook input is not (JSON|a (PreToolUse|PostToolUse|PostToolUseFailure) hook input)/);
      }),
      { numRuns: RUNS },
    );
  });

  it('a valid input with one field dropped, renamed or retyped is accepted or refused naming that field', () => {
    expect(parseHookInput(JSON.stringify(VALID_HOOK)).ok).toBe(true);
    fc.assert(
      fc.property(mutations(VALID_HOOK), ({ value, m }) => {
        const r = parseHookInput(JSON.stringify(value));
        if (r.ok) return;
        // The top-level field is what the schema checks (tool_input's inside is the tool's).
        expect(r.message, JSON.stringify(m)).toContain(String(m.path[0]));
      }),
      { numRuns: RUNS },
    );
  });
});

// ---- policy.yaml -----------------------------------------------------------------------------------

const POLICY_CTX = () => ({ home: join(root, 'home'), gatehouseHome: join(root, 'home', '.config', 'gatehouse'), caseInsensitive: false, extract: (call: Parameters<typeof extract>[0]) => extract(call, { home: join(root, 'home') }) });

function expectPrecisePolicy(r: PolicyLoadResult, lines: number): void {
  for (const p of r.problems) {
    expect(p.line).toBeGreaterThanOrEqual(1);
    // A problem points into the file (the line after the last counts: "missing at the end").
    expect(p.line).toBeLessThanOrEqual(lines + 1);
    expect(p.column).toBeGreaterThanOrEqual(1);
    expect(p.message.length).toBeGreaterThan(10);
  }
  if (r.broken) expect(r.problems.length).toBeGreaterThan(0);
  // A rule left out is never left out silently.
  if (r.rejected.length) expect(r.problems.length).toBeGreaterThanOrEqual(1);
}

describe('policy.yaml', () => {
  it('arbitrary text and arbitrary YAML values load or give problems with a line, a column and a sentence', () => {
    fc.assert(
      fc.property(fc.oneof(anyText, fc.jsonValue({ maxDepth: 4 }).map((v) => toYaml(v))), (text) => {
        const r = parsePolicyText(text, 'policy.yaml', POLICY_CTX());
        expectPrecisePolicy(r, text.split('\n').length);
      }),
      { numRuns: RUNS },
    );
  });

  it('the example policy with one field dropped, renamed or retyped loads or names the field and the rule', () => {
    const text = readFileSync(join(repoRoot, 'test', 'fixtures', 'policy', 'example-policy.yaml'), 'utf8');
    const valid = parseYaml(text) as unknown;
    const base = parsePolicyText(toYaml(valid), 'policy.yaml', POLICY_CTX());
    expect(base.problems).toEqual([]);
    fc.assert(
      fc.property(mutations(valid), ({ value, m }) => {
        const yaml = toYaml(value);
        const r = parsePolicyText(yaml, 'policy.yaml', POLICY_CTX());
        expectPrecisePolicy(r, yaml.split('\n').length);
        if (r.problems.length === 0) return;
        // Some problem names the mutated field (or, for a renamed one, its new name) or the rule it is in.
        const ruleIndex = m.path[0] === 'rules' && typeof m.path[1] === 'number' ? m.path[1] : -1;
        const ruleName = ruleIndex >= 0 ? ((valid as { rules: { name: string }[] }).rules[ruleIndex]?.name ?? '') : '';
        const words = [...m.path.filter((k): k is string => typeof k === 'string'), ...(m.to ? [m.to] : []), ...(ruleName ? [ruleName] : [])];
        // A rule whose name cannot be read is named by its position ("rule 2").
        const named = r.problems.some((p) => words.some((w) => p.message.includes(w) || p.rule === w) || (ruleIndex >= 0 && (p.rule !== undefined || p.message.includes(`rule ${ruleIndex + 1}`))));
        expect(named, JSON.stringify({ m, problems: r.problems })).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });
});

// ---- settings.json ---------------------------------------------------------------------------------

describe('settings.json', () => {
  const DEFAULTS = { mode: 'live', autonomy: 'supervised', autoApprove: ['read_*'], alwaysAsk: [], approvalExpiryMinutes: 10, sessionGrantMinutes: 60, requireSandbox: false, hookAsk: 'agent', hookUnreachable: 'deny', desktopNotifications: true, auditRaw: false, auditRetentionDays: 0, auditMaxEvents: 0 };

  it('any file content gives valid settings, and an error naming the file (and the field) when it is not used', () => {
    const file = join(root, 'settings.json');
    fc.assert(
      fc.property(fc.oneof(anyText, mutations(DEFAULTS).map(({ value }) => JSON.stringify(value))), (text) => {
        writeFileSync(file, text);
        const r = readSettingsFile(file);
        expect(settingsSchema.safeParse(r.settings).success).toBe(true);
        if (r.error !== null) {
          expect(r.error).toContain(file);
          expect(r.error).toMatch(/safe defaults/);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('a settings.update with a mutated patch is applied or refused naming the field', () => {
    const file = join(root, 'settings-update.json');
    const store = new SettingsStore({ file });
    fc.assert(
      fc.property(mutations(DEFAULTS), ({ value, m }) => {
        let threw: unknown = null;
        try {
          store.update(value as never, 'operator:prop');
        } catch (err) {
          threw = err;
        }
        if (threw === null) {
          expect(settingsSchema.safeParse(store.current).success).toBe(true);
          return;
        }
        expect(threw).toBeInstanceOf(OperationError);
        expect((threw as OperationError).message).toMatch(/^Settings were not changed: /);
        const words = [String(m.path[0]), ...(m.to ? [m.to] : [])];
        expect(words.some((w) => (threw as Error).message.includes(w)), `${(threw as Error).message} ${JSON.stringify(m)}`).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });
});

// ---- audit search queries --------------------------------------------------------------------------

describe('audit search query language', () => {
  let store: AuditStore;
  let query: AuditQuery;
  beforeAll(async () => {
    store = new AuditStore({ path: join(root, 'audit.db') });
    for (let i = 0; i < 50; i++) {
      store.append({ type: 'call.received', actor: 'agent:prop', payload: { call: `call-${i}`, agent: 'prop', session: 's', tool: i % 2 ? 'Bash' : 'Read', source: 'hook', cwd: '/w', arguments: { command: `rm -rf /tmp/x${i} && cat prod/app.yaml` } } });
    }
    await store.append({ type: 'host.started', actor: 'host', payload: {} }).durable;
  });
  afterAll(() => store?.close());

  const FTS_PIECES = ['rm', 'tmp', 'AND', 'OR', 'NOT', 'NEAR(', ')', '(', '"', '*', '^', ':', 'type:', '{type actor}:', '-', '+', 'prod/app.yaml', '"rm -rf"', 'é', 'Bash', '\u202e', '\0', "'", ',', 'NEAR(rm tmp, 2)', '*rm'];

  it('any query string is answered with events or refused with a sentence on FTS5 syntax; never another error', () => {
    query = new AuditQuery({ store });
    const q = fc.oneof(
      fc.string({ maxLength: 80 }),
      fc.string({ unit: 'grapheme', maxLength: 40 }),
      fc.array(fc.constantFrom(...FTS_PIECES), { maxLength: 8 }).map((a) => a.join(' ')),
      fc.array(fc.constantFrom(...FTS_PIECES), { maxLength: 8 }).map((a) => a.join('')),
    );
    fc.assert(
      fc.property(q, fc.option(fc.constantFrom('prop', 'nobody', "'; DROP TABLE events; --"), { nil: undefined }), (text, agent) => {
        try {
          const r = query.search({ query: text, limit: 20, ...(agent !== undefined ? { agent } : {}) });
          expect(r.total).toBeGreaterThanOrEqual(r.events.length);
        } catch (err) {
          expect(err, String(err)).toBeInstanceOf(OperationError);
          expect((err as OperationError).reason).toBe('invalid');
          expect((err as Error).message).toMatch(/The search query is not valid FTS5 syntax/);
        }
      }),
      { numRuns: 300 },
    );
    // The log is intact afterwards: queries never write.
    expect(store.verify().ok).toBe(true);
  });
});

// ---- a real host: the hook route and MCP tool arguments over loopback HTTP ------------------------

describe('a real host answers every hook body and every MCP tool-call argument', () => {
  let host: Host;
  let net: Listening;
  let port = 0;
  let offOperator: () => void = () => {};
  const logs: string[] = [];
  beforeAll(async () => {
    const home = join(root, 'host-home');
    mkdirSync(join(home, 'plugins'), { recursive: true });
    // Dry-run: whatever is allowed is never executed. hookAsk "agent": an asked hook call is
    // answered "ask" at once. An asked MCP call waits for an operator: this one denies at once.
    writeFileSync(join(home, 'settings.json'), JSON.stringify({ mode: 'dry-run', autonomy: 'supervised', hookAsk: 'agent' }));
    host = createHost({ home, shell: 'serve', log: (m: string) => logs.push(m), projectDir: home, watch: false });
    await host.ready;
    net = await listenForConsolesAndAgents(host, { bindHost: '127.0.0.1', port: 0, staticDir: home });
    port = net.shell.port;
    offOperator = host.bus.subscribe((name) => {
      if (name !== 'approvals.changed') return;
      for (const item of host.approvals.list({ state: 'pending' })) host.approvals.deny(item.id, { operator: 'prop', reason: 'The property test denies every asked call.' });
    });
  });
  afterAll(async () => {
    offOperator();
    await net?.shell.close();
    await host?.close('test done');
  });

  const agentHeaders = () => ({ Authorization: `Bearer ${net.agentToken}`, 'Content-Type': 'application/json' });

  it('every hook body, valid or not, is answered 200 with a decision and a reason (a refusal is a deny)', async () => {
    const body = fc.oneof(
      anyText,
      mutations(VALID_HOOK).map(({ value }) => JSON.stringify(value)),
      fc.record({ tool_name: fc.constantFrom('Bash', 'Read', 'Write', 'Edit', 'Grep', 'Glob', 'WebFetch', 'mcp__x__y', 'Task', ''), tool_input: fc.jsonValue({ maxDepth: 3 }) }).map((t) => JSON.stringify({ ...VALID_HOOK, ...t })),
    );
    await fc.assert(
      fc.asyncProperty(body, async (text) => {
        const res = await http({ port, path: '/hooks/claude/pre-tool-use', method: 'POST', headers: agentHeaders(), body: text });
        expect(res.status, res.body).toBe(200);
        const answer = JSON.parse(res.body) as { continue?: boolean; hookSpecificOutput?: { permissionDecision: string; permissionDecisionReason: string } };
        if (answer.continue === true && answer.hookSpecificOutput === undefined) return;
        expect(['allow', 'deny', 'ask']).toContain(answer.hookSpecificOutput?.permissionDecision);
        expect(answer.hookSpecificOutput!.permissionDecisionReason.length).toBeGreaterThan(10);
        const parsed = parseHookInput(text);
        // Input Gatehouse cannot read is never let through.
        if (!parsed.ok) expect(answer.hookSpecificOutput!.permissionDecision).toBe('deny');
      }),
      { numRuns: 150 },
    );
  });

  // Found here: SQLite's JSON functions stop at 1,000 levels, and the audit index reads every
  // payload with them, so one call whose arguments nested deeper failed the whole batch of events
  // written in its tick: every other agent's events of that tick were lost with it.
  it('arguments nested thousands of levels deep are refused with a reason, and lose no other call\'s events', async () => {
    // As text: the JSON of 200,000 levels is more than JSON.stringify itself can nest.
    const deep = (n: number) => `{"file_path":"/tmp/x","x":${'['.repeat(n)}${']'.repeat(n)}}`;
    const hook = (session: string, toolInput: string) =>
      http({ port, path: '/hooks/claude/pre-tool-use', method: 'POST', headers: agentHeaders(), body: JSON.stringify({ ...VALID_HOOK, session_id: session, tool_input: 'INPUT' }).replace('"INPUT"', toolInput) }).then((r) => JSON.parse(r.body) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } });
    const before = logs.length;
    // Sent together, so their events share ticks (and batches) with the deep one's.
    const answers = await Promise.all([hook('deep-1', deep(1500)), ...Array.from({ length: 6 }, () => hook('deep-batch', '{"file_path":"/tmp/notes.txt"}')), hook('deep-2', deep(200_000))]);
    for (const a of [answers[0]!, answers.at(-1)!]) expect(a.hookSpecificOutput.permissionDecisionReason).toMatch(/nest more than 100 levels deep \(at x\[0\]/);
    host.audit.flush();
    expect(logs.slice(before).filter((l) => /audit/i.test(l))).toEqual([]);
    const rows = host.audit.db.prepare("SELECT json_extract(payload, '$.session') AS session FROM events WHERE type = 'call.received'").all() as { session: string }[];
    expect(rows.filter((r) => r.session.endsWith('deep-batch'))).toHaveLength(6);
    expect(rows.filter((r) => /deep-[12]$/.test(r.session))).toHaveLength(2);
    expect(host.audit.verify().ok).toBe(true);
  });

  it('every tools/call argument value gets a tool result or a JSON-RPC error with a message; the session lives on', async () => {
    const post = async (body: unknown, headers: Record<string, string>) => {
      const res = await http({ port, path: '/mcp', method: 'POST', headers: { ...agentHeaders(), Accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(body) });
      // A slow answer comes as an SSE stream: its data lines are the messages.
      const messages = res.headers['content-type']?.toString().startsWith('text/event-stream')
        ? res.body.split('\n').filter((l) => l.startsWith('data:')).map((l) => JSON.parse(l.slice(5)) as Record<string, unknown>)
        : res.body
          ? [JSON.parse(res.body) as Record<string, unknown>]
          : [];
      return { status: res.status, headers: res.headers, messages };
    };
    const init = await post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'prop', version: '1' } } }, {});
    expect(init.status).toBe(200);
    const session = { 'mcp-session-id': String(init.headers['mcp-session-id']), 'mcp-protocol-version': '2025-06-18' };
    expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session)).status).toBe(202);
    let id = 1;
    const args = fc.oneof(
      fc.jsonValue({ maxDepth: 3 }),
      fc.dictionary(fc.constantFrom('command', 'cwd', 'path', 'file_path', 'url', 'content', 'timeout', 'x'), fc.jsonValue({ maxDepth: 2 })),
      fc.record({ command: fc.oneof(fc.string({ maxLength: 200 }), fc.constantFrom('cat ~/.ssh/id_rsa', 'ls', 'rm -rf /*', 'curl http://10.0.0.1/', 'echo $(id) > ~/.bashrc')), cwd: fc.option(fc.string({ maxLength: 40 }), { nil: undefined }) }, { requiredKeys: ['command'] }),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('shell', 'shell', 'no_such_tool', ''), fc.option(args, { nil: undefined }), async (name, a) => {
        const callId = id++;
        const r = await post({ jsonrpc: '2.0', id: callId, method: 'tools/call', params: { name, ...(a !== undefined ? { arguments: a } : {}) } }, session);
        expect(r.status, JSON.stringify(r.messages)).toBe(200);
        const answer = r.messages.find((m) => m.id === callId) as { result?: { isError?: boolean; content: { text?: string }[]; _meta?: { gatehouse?: { decision: string; executed: boolean } } }; error?: { code: number; message: string } } | undefined;
        expect(answer, JSON.stringify(r.messages)).toBeDefined();
        if (answer!.error) {
          expect(answer!.error.message.length).toBeGreaterThan(10);
          return;
        }
        const g = answer!.result!._meta?.gatehouse;
        expect(g, JSON.stringify(answer)).toBeDefined();
        expect(['allow', 'deny', 'ask', 'expired']).toContain(g!.decision);
        // Dry-run: nothing ever executes, whatever the arguments.
        expect(g!.executed).toBe(false);
        expect(answer!.result!.content.map((c) => c.text ?? '').join('').length).toBeGreaterThan(10);
      }),
      { numRuns: 150 },
    );
    const ping = await post({ jsonrpc: '2.0', id: 'ping', method: 'ping' }, session);
    expect(ping.messages[0]).toMatchObject({ id: 'ping', result: {} });
    // Every call that reached the gateway has exactly one decision in the log.
    host.audit.flush();
    const open = host.audit.db
      .prepare("SELECT count(*) AS n FROM events r WHERE r.type = 'call.received' AND (SELECT count(*) FROM events d WHERE d.type = 'call.decided' AND json_extract(d.payload, '$.call') = json_extract(r.payload, '$.call')) != 1")
      .get() as { n: number };
    expect(open.n).toBe(0);
  });
});
