// `npm run soak [-- --minutes 10 --agents 50 --dry-run --think-ms 200 --no-faults --keep]`: see
// bench/soak.ts and docs/soak.md. Exit 1 when a correctness check fails (incomplete trails, lost
// events, a broken chain, unlinked reports, a fault phase whose expected outcome did not hold, RSS
// growth past the bound); times are printed, never judged.
import { parseArgs } from 'node:util';
import { formatReport, runSoak, soakProblems } from './soak.js';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    agents: { type: 'string', default: '50' },
    'think-ms': { type: 'string', default: '200' },
    'dry-run': { type: 'boolean', default: false },
    'no-faults': { type: 'boolean', default: false },
    'max-rss-growth-mb': { type: 'string', default: '300' },
    keep: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  },
});

function num(name: string, v: string, min: number): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n < min) {
    console.error(`soak: --${name} must be a number ≥ ${min}, not "${v}".`);
    process.exit(2);
  }
  return n;
}

const minutes = num('minutes', values.minutes, 0.05);
const agents = num('agents', values.agents, 2);
if (!Number.isInteger(agents)) {
  console.error(`soak: --agents must be a whole number, not "${values.agents}".`);
  process.exit(2);
}
const report = await runSoak({
  seconds: Math.round(minutes * 60),
  agents,
  live: !values['dry-run'],
  thinkMs: num('think-ms', values['think-ms'], 0),
  keep: values.keep,
  faults: !values['no-faults'],
  log: (line) => process.stderr.write(`${line}\n`),
});
console.log(values.json ? JSON.stringify(report, null, 2) : formatReport(report));
const problems = soakProblems(report, { maxRssGrowthMb: num('max-rss-growth-mb', values['max-rss-growth-mb'], 1) });
if (report.dir && values.keep) console.log(`\nkept: ${report.dir}`);
if (problems.length) {
  console.log(`\nFAILED: ${problems.join('; ')}`);
  process.exit(1);
}
console.log(`\nOK: every call has a complete audit trail, nothing was lost, the chain verifies${report.faults.length ? ', every fault phase had its expected outcome' : ''}.`);
