// `npm test`: build, type-check, lint, unit and integration tests (Vitest), then e2e (Playwright).
// Every stage runs even if an earlier one failed, so one run shows everything that is wrong;
// the last line sums them up as "N passed, N failed, N skipped".
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { stripVTControlCharacters } from 'node:util';

const tmp = '.tmp';
mkdirSync(tmp, { recursive: true });
const bin = (name) => `node_modules/.bin/${name}`;
const failedStages = [];
const totals = { passed: 0, failed: 0, skipped: 0 };
// Each failed test, named with its first error line, repeated at the very end: CI keeps only the
// tail of a long log, and a failure that scrolled away cannot be fixed.
const failedTests = [];
// How long each stage took, printed at the end: CI has a time limit, and what to shorten is
// what took longest.
const stageTimes = [];
const firstLine = (text) => stripVTControlCharacters(String(text ?? '')).split('\n').find((l) => l.trim())?.trim().slice(0, 300) ?? '';

function stage(name, cmd, args, env = {}) {
  console.log(`\n=== ${name}: ${[cmd, ...args].join(' ')}`);
  const started = Date.now();
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  stageTimes.push(`${name} ${Math.round((Date.now() - started) / 1000)} s`);
  if (r.status !== 0) failedStages.push(`${name} (exit ${r.status ?? r.signal})`);
  return r.status === 0;
}

const built = stage('build', process.execPath, ['scripts/build.mjs']);

/**
 * Stages that only read the tree, two at a time: tsc and ESLint each use one core, and CI has two
 * (in a row they took ~4 minutes of a run that must stay under 40). Each stage's output is
 * printed whole when it ends, so the log reads as if they had run one after another.
 */
async function checks(list) {
  const run = ({ name, cmd, args }) =>
    new Promise((resolve) => {
      const started = Date.now();
      const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (c) => (output += c));
      child.stderr.on('data', (c) => (output += c));
      child.on('error', (err) => (output += `${err.message}\n`));
      child.on('close', (code, signal) => {
        console.log(`\n=== ${name}: ${[cmd, ...args].join(' ')}`);
        if (output) process.stdout.write(output.endsWith('\n') ? output : `${output}\n`);
        stageTimes.push(`${name} ${Math.round((Date.now() - started) / 1000)} s`);
        if (code !== 0) failedStages.push(`${name} (exit ${code ?? signal})`);
        resolve();
      });
    });
  const queue = [...list];
  const lane = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) await run(next);
  };
  await Promise.all([lane(), lane()]);
}

// The same command as `npm run lint`. Its problems are also repeated at the end with the failed
// tests, since a long log keeps only its tail. Lint is the longest, so it starts first.
const eslintJson = `${tmp}/eslint.json`;
rmSync(eslintJson, { force: true });
await checks([
  { name: 'lint', cmd: bin('eslint'), args: ['--max-warnings=0', '--format=json', `--output-file=${eslintJson}`, '.'] },
  { name: 'typecheck (node side)', cmd: bin('tsc'), args: ['-p', 'tsconfig.json', '--noEmit'] },
  { name: 'typecheck (renderer)', cmd: bin('tsc'), args: ['-p', 'renderer/tsconfig.json', '--noEmit'] },
  { name: 'typecheck (e2e)', cmd: bin('tsc'), args: ['-p', 'e2e/tsconfig.json', '--noEmit'] },
]);
if (existsSync(eslintJson)) {
  const results = JSON.parse(readFileSync(eslintJson, 'utf8'));
  const problems = results.reduce((n, f) => n + f.messages.length, 0);
  console.log(`lint: ${results.length} files, ${problems} problem${problems === 1 ? '' : 's'}`);
  for (const file of results) {
    for (const m of file.messages) {
      const problem = `${file.filePath.replace(`${process.cwd()}/`, '')}:${m.line}:${m.column} ${firstLine(m.message)} (${m.ruleId ?? 'eslint'})`;
      console.log(`  ✗ ${problem}`);
      failedTests.push(`lint › ${problem}`);
    }
  }
} else failedStages.push('lint wrote no report');

const vitestJson = `${tmp}/vitest.json`;
rmSync(vitestJson, { force: true });
stage('unit and integration tests', bin('vitest'), ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${vitestJson}`]);
if (existsSync(vitestJson)) {
  const v = JSON.parse(readFileSync(vitestJson, 'utf8'));
  totals.passed += v.numPassedTests;
  totals.failed += v.numFailedTests;
  totals.skipped += v.numPendingTests + (v.numTodoTests ?? 0);
  for (const file of v.testResults) {
    for (const t of file.assertionResults) {
      if (t.status === 'failed') failedTests.push(`${file.name.replace(`${process.cwd()}/`, '')} › ${t.fullName}: ${firstLine(t.failureMessages?.[0])}`);
    }
    // A file that failed to load has no tests to name, only its message.
    if (file.status === 'failed' && !file.assertionResults.some((t) => t.status === 'failed')) {
      failedTests.push(`${file.name.replace(`${process.cwd()}/`, '')}: ${firstLine(file.message)}`);
    }
  }
} else failedStages.push('unit tests wrote no report');

/** Runs Playwright as one stage and adds its report to the totals and the failed tests. */
function e2eStage(name, args, report) {
  rmSync(report, { force: true });
  stage(name, bin('playwright'), ['test', ...args], { PLAYWRIGHT_JSON_OUTPUT_NAME: report });
  if (!existsSync(report)) {
    failedStages.push(`${name} wrote no report`);
    return;
  }
  const r = JSON.parse(readFileSync(report, 'utf8'));
  totals.passed += r.stats.expected + r.stats.flaky;
  totals.failed += r.stats.unexpected;
  totals.skipped += r.stats.skipped;
  const walk = (suite, titles) => {
    for (const spec of suite.specs ?? []) {
      for (const t of spec.tests ?? []) {
        if (t.status !== 'unexpected') continue;
        const error = t.results?.find((x) => x.error)?.error;
        failedTests.push(`[${t.projectName}] ${spec.file}:${spec.line} › ${[...titles, spec.title].join(' › ')}: ${firstLine(error?.message)}`);
      }
    }
    for (const child of suite.suites ?? []) walk(child, [...titles, child.title]);
  };
  for (const suite of r.suites ?? []) walk(suite, []);
}

if (built) {
  // Two at a time (playwright.config.ts), then the specs tagged @alone, which time what an
  // operator waits for, one at a time with the machine to themselves.
  e2eStage('end-to-end tests', ['--grep-invert', '@alone'], `${tmp}/playwright.json`);
  e2eStage('end-to-end tests (alone)', ['--grep', '@alone', '--workers', '1'], `${tmp}/playwright-alone.json`);
} else failedStages.push('e2e tests not run: the build failed');

console.log('');
console.log(`Stage times: ${stageTimes.join(', ')}`);
if (failedTests.length) console.log(`Failed tests:\n${failedTests.map((t) => `  ✗ ${t}`).join('\n')}`);
if (failedStages.length) console.log(`Failed stages: ${failedStages.join('; ')}`);
console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(failedStages.length ? 1 : 0);
