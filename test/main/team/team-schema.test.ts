// Issue #28, the team database: `gatehouse team init` (the built CLI) creates the schema from the
// frozen numbered migrations, again is a no-op, and never takes a password from argv; the shipped
// migration SQL is pinned by its hash (editing it fails here: write a new migration).
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { TEAM_SCHEMA_VERSION, teamMigrations } from '../../../main/team/migrations/migrate.js';
import { memberName, teamUrl } from '../../../main/team/team-url.js';
import { repoRoot, runCli } from '../../support/cli.js';
import { pgMissing, useCluster } from '../../support/pg-suite.js';

/** sha256 of each team migration's SQL as shipped. */
const SHIPPED: Record<number, string> = {
  1: 'dd678d4fd6e5466a82699f52c4fb92a02e088795a1ed64a4582d2d46e6b3eee3',
  2: '49b0276eaffc7276a340889915e99b32b60f749b31cdf47dd032c8c16fb0b1be',
  3: 'de5597fd6dbad2b9ca73ff0a75a7cadd63f5d76eb43feefb7f5eaa5ff250b71d',
  4: 'c5d60549a86e93232cd4fcd447cd5b133457cbc7b5ece1a5aac8d743715298fb',
  5: 'df2fee5253f2cb81eb74bcd2f3f83c304df82a408ddac99d35b1d61f5dd3ff49',
  6: 'c2eae74ed2c5a30f0dfdaca9ccf15e413646b196656e6e609cb5fbbcf004d959',
  7: '0a18d8b97b48e3426d6cc9489fe120342c7b78b916f867feb4737a3f611747b3',
};

describe('the team URL and member name', () => {
  it('refuses a password on the command line, in the URL or as a parameter, and says where to put it', async () => {
    expect(() => teamUrl('postgres://gh:hunter2@db.internal/team')).toThrow(/carries a password.*GATEHOUSE_TEAM_URL.*PGPASSFILE.*pgpass/);
    expect(() => teamUrl('postgres://gh@db.internal/team?password=hunter2')).toThrow(/carries a password/);
    expect(teamUrl('postgres://gh@db.internal/team?sslmode=verify-full')).toBe('postgres://gh@db.internal/team?sslmode=verify-full');
    // The environment may carry one: it is not on any command line.
    expect(teamUrl(undefined, { GATEHOUSE_TEAM_URL: 'postgres://gh:hunter2@db.internal/team' })).toBe('postgres://gh:hunter2@db.internal/team');
    expect(teamUrl(undefined, {})).toBeNull();
    expect(() => teamUrl('mysql://gh@db/team')).toThrow(/postgres:\/\//);
    const r = await runCli(['team', 'init', 'postgres://gh:hunter2@127.0.0.1:1/team']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/carries a password/);
    const serve = await runCli(['serve', '--port', '0', '--team', 'postgres://gh:hunter2@127.0.0.1:1/team']);
    expect(serve.code).toBe(2);
    expect(serve.stderr).toMatch(/carries a password/);
  });

  it('takes the member name given, else GATEHOUSE_TEAM_MEMBER, else the host name, and refuses one that cannot key events', () => {
    expect(memberName('laptop-1', {}, 'box')).toBe('laptop-1');
    expect(memberName(undefined, { GATEHOUSE_TEAM_MEMBER: 'ci-7' }, 'box')).toBe('ci-7');
    expect(memberName(undefined, {}, 'box.local')).toBe('box.local');
    expect(() => memberName('a b', {}, 'box')).toThrow(/member name/);
  });

  it('pins every shipped team migration', () => {
    for (const m of teamMigrations) expect({ version: m.version, sha: createHash('sha256').update(m.sql).digest('hex') }).toEqual({ version: m.version, sha: SHIPPED[m.version] });
  });
});

describe('a single machine', () => {
  it('never loads the PostgreSQL client: the built CLI imports pg only dynamically, in team mode', () => {
    // The CLI is split (cli.js and the chunks its commands load): no file of it imports pg statically.
    const dir = join(repoRoot, 'out', 'main');
    const files = ['cli.js', ...readdirSync(dir).filter((f) => /^cli-chunk-.*\.js$/.test(f))];
    expect(files.length).toBeGreaterThan(1);
    const code = files.map((f) => readFileSync(join(dir, f), 'utf8'));
    for (const [i, text] of code.entries()) expect(text, files[i]).not.toMatch(/^import[^;]*from\s*["']pg["']/m);
    expect(code.join('\n').match(/\bimport\(["']pg["']\)/g)).toHaveLength(1);
  });
});


describe.runIf(pgMissing('team-schema') === null)('gatehouse team init against a real PostgreSQL', () => {
  const cluster = useCluster();

  it('creates the schema, reports nothing to do the second time, and team status says no member has shipped yet', async () => {
    const url = await cluster().createDatabase('init');
    const first = await runCli(['team', 'init', url]);
    expect(first.stderr).toBe('');
    expect(first.stdout).toContain(`migrated from schema version 0 to ${TEAM_SCHEMA_VERSION}.`);
    const again = await runCli(['team', 'init'], { GATEHOUSE_TEAM_URL: url });
    expect(again.stdout).toContain(`is at schema version ${TEAM_SCHEMA_VERSION}; nothing to do`);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const tables = (await client.query<{ t: string }>("SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")).rows.map((r) => r.t);
    await client.end();
    expect(tables).toEqual(['team_asks', 'team_decisions', 'team_events', 'team_forks', 'team_grants', 'team_member_roles', 'team_members', 'team_operators', 'team_policies', 'team_schema']);
    const status = await runCli(['team', 'status', url]);
    expect(status.stdout).toMatch(/No member has shipped/);
  });

  it('names the database and the cause when it cannot connect', async () => {
    const r = await runCli(['team', 'status', `postgres://gatehouse@127.0.0.1:${cluster().port}/no_such_db`]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/team database postgres:\/\/gatehouse@127\.0\.0\.1:\d+\/no_such_db: .*does not exist/);
  });
});
