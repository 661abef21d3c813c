// Options that run code are code (issue #24): the table of build tools' and interpreters' options
// that name a program, a module, a config file or a folder (code-options.ts), the judge that makes
// such calls unsure, and command-prefix grants that cover only the command as granted plus inert
// options — the last through a real `gatehouse serve` (the built CLI) over Claude Code's HTTP hook,
// with grants made the way an operator makes them (approvals.grant on a waiting call).
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { extraWordsInert, CODE_OPTION_FAMILIES, codeEnvReason, codeOptionReasons, familyOf, readOptions, type OptWord } from '../../../main/policy/extract/code-options.js';
import { extract, initExtractor } from '../../../main/policy/extract/index.js';
import { cliPath } from '../../support/cli.js';
import { startServe, watchInbox, type ServedHost } from '../../support/served-host.mjs';
import { tempDir } from '../../support/temp.js';

const words = (s: string): OptWord[] => s.split(' ').filter(Boolean).map((t) => ({ t, known: true }));
/** The judge's reasons for `cmd` (program and arguments split on spaces: the table's view, no shell). */
const reasons = (cmd: string): string[] => {
  const [program = '', ...args] = cmd.split(' ');
  return codeOptionReasons(program, words(args.join(' ')));
};
const extra = (cmd: string, granted: string) => extraWordsInert(cmd.split(' '), granted.split(' ').length);

describe('the table: options that name code, a config or a folder', () => {
  it.each([
    ['npm test --node-options=--import=data:x', '--node-options'],
    ['npm test --node-options --require=x', '--node-options'],
    ['npm test --script-shell=/tmp/x', '--script-shell'],
    ['npm test --script-shell /tmp/x', '--script-shell'],
    ['npm test --prefix /tmp/x', '--prefix'],
    ['npm test -C /tmp/x', '-C'],
    ['npm test -C/tmp/x', '-C'],
    ['npm test --userconfig=/tmp/rc', '--userconfig'],
    ['npm test --globalconfig /tmp/rc', '--globalconfig'],
    ['npm test --workspace=../x', '--workspace'],
    ['npm test -w ../x', '-w'],
    ['npm test -w=../x', '-w'],
    ['npm test --script-s=/tmp/x', '--script-shell'],
    ['make --dir=/tmp/x', '--directory'],
    ['pip install --targ /tmp/t x', '--target'],
    ['npm exec --call x', '--call'],
    ['npm test -- --require /tmp/x.js', '--require'],
    ['pnpm --dir /tmp/x test', '--dir'],
    ['pnpm test --pnpmfile p.cjs', '--pnpmfile'],
    ['yarn --cwd /tmp/x test', '--cwd'],
    ['make test SHELL=/tmp/x', 'SHELL'],
    ['make test .SHELLFLAGS=-c', '.SHELLFLAGS'],
    ['make test SHELL:=/tmp/x', 'SHELL'],
    ['make test MAKEFLAGS=-f/tmp/m', 'MAKEFLAGS'],
    ['make -f /tmp/m test', '-f'],
    ['make -C /tmp/x', '-C'],
    ['make -kC/tmp/x', '-C'],
    ['make --directory=/tmp/x', '--directory'],
    ['make --eval=x: x', '--eval'],
    ['pytest -p evil', '-p'],
    ['pytest -pevil', '-p'],
    ['pytest -qp evil', '-p'],
    ['pytest -o addopts=-pevil', '-o'],
    ['pytest --override-ini=addopts=x', '--override-ini'],
    ['pytest --pdbcls=os:system', '--pdbcls'],
    ['pytest -c /tmp/ini', '-c'],
    ['pytest --rootdir /tmp', '--rootdir'],
    ['pytest --confcutdir=/', '--confcutdir'],
    ['py.test -p evil', '-p'],
    ['cargo test --config target.x.runner="/tmp/x"', '--config'],
    ['cargo build --config=build.rustc-wrapper="/tmp/x"', '--config'],
    ['cargo test --manifest-path /tmp/Cargo.toml', '--manifest-path'],
    ['cargo +nightly test', '+nightly'],
    ['cargo test -Zunstable-options', '-Z'],
    ['go test -exec /tmp/x ./...', '-exec'],
    ['go test -toolexec=/tmp/x', '-toolexec'],
    ['go test --toolexec=/tmp/x', '-toolexec'],
    ['go build -overlay o.json', '-overlay'],
    ['go test -modfile=/tmp/go.mod', '-modfile'],
    ['go build -ldflags=-extld=/tmp/x', '-ldflags'],
    ['pip install -r /tmp/r.txt', '-r'],
    ['pip install --config-settings=x=y .', '--config-settings'],
    ['pip install -e ../x', '-e'],
    ['pip install --src /tmp/s x', '--src'],
    ['pip install --target=/tmp/t x', '--target'],
    ['node --require /tmp/x.js a.js', '--require'],
    ['node -r/tmp/x.js a.js', '-r'],
    ['node --import=data:x a.js', '--import'],
    ['node --loader x.mjs a.js', '--loader'],
    ['node --experimental-loader=x.mjs a.js', '--experimental-loader'],
    ['node --env-file=.env a.js', '--env-file'],
    ['node --inspect a.js', '--inspect'],
    ['python3 -W ignore::evil.Cat a.py', '-W'],
    ['python3.12 -X presite=evil a.py', '-X'],
    ['tox -c /tmp/tox.ini', '-c'],
    ['tox --workdir /tmp/w', '--workdir'],
    ['tox -x testenv.commands=x', '-x'],
    ['gradle --init-script /tmp/i.gradle test', '--init-script'],
    ['gradle -I /tmp/i.gradle test', '-I'],
    ['gradle -c s.gradle test', '-c'],
    ['gradle --settings-file s.gradle test', '--settings-file'],
    ['gradle -b b.gradle test', '-b'],
    ['gradle -p /tmp/x test', '-p'],
    ['gradle --project-dir=/tmp/x test', '--project-dir'],
    ['gradle --gradle-user-home /tmp/g test', '--gradle-user-home'],
    ['gradle test -Dorg.gradle.jvmargs=x', '-D'],
    ['gradlew test -I i.gradle', '-I'],
    ['mvn -f /tmp/pom.xml test', '-f'],
    ['mvn -s /tmp/s.xml test', '-s'],
    ['mvn -gs /tmp/s.xml test', '-gs'],
    ['mvn --settings=/tmp/s.xml test', '--settings'],
    ['mvn test -Dexec.executable=/tmp/x', '-D'],
    ['mvn test -D maven.repo.local=/tmp/r', '-D'],
    ['mvn test --toolchains t.xml', '--toolchains'],
    ['mvn com.evil:plugin:1.0:run', 'com.evil:plugin:1.0:run'],
    // Kept in the program's config for every later run.
    ['npm config set script-shell /tmp/x', 'script-shell'],
    ['npm set node-options=--require=/tmp/x.js', 'node-options'],
    ['pnpm config set pnpmfile /tmp/p.cjs', 'pnpmfile'],
    ['yarn config set yarnPath /tmp/y.cjs', 'yarnPath'],
    ['go env -w GOFLAGS=-toolexec=/tmp/x', 'GOFLAGS'],
    ['pip config set install.target /tmp/t', 'install.target'],
  ])('%s: %s', (cmd, option) => {
    const r = reasons(cmd);
    expect(r.length, `${cmd} names code`).toBeGreaterThan(0);
    expect(r.join('; ')).toContain(` ${option} `);
  });

  it.each([
    'npm test', 'npm run build', 'npm test -- --watch', 'npm test --silent', 'npm test -s', 'npm test -w pkg-a', 'npm test --workspace=packages/a',
    'npm run lint -- --fix', 'pnpm -w run build', 'pnpm --filter web test', 'yarn test', 'make', 'make test', 'make -j4', 'make -j 4 all', 'make -j',
    'make test V=1', 'make -ks', 'pytest -q tests/', 'pytest -k name -x', 'pytest -p no:cacheprovider', 'pytest -pno:randomly -q', 'pytest -ra --tb=short',
    'cargo test --release', 'cargo build', 'cargo test -- --nocapture', 'cargo test -p foo --features bar', 'go test ./...', 'go vet ./...',
    'go test -run TestX -count=1 ./...', 'go build -ldflags=-s', 'pip install -r requirements.txt', 'pip install -e .', 'pip install -U pip',
    'node script.js', 'node script.js -r x --import y', 'node --test', 'python3 -m pytest', 'python3 -X importtime a.py', 'python3 -W ignore a.py',
    'python3 a.py -W ignore::x.Y', 'tox -e py311', 'npm config set registry https://r.example/', 'npm config get script-shell', 'go env -w GOPROXY=direct',
    'pip config set global.index-url https://x.example/', 'gradle test', 'gradle build --offline', 'mvn test', 'mvn -q -DskipTests package', 'mvn test -Dtest=FooTest',
  ])('%s names none', (cmd) => {
    expect(reasons(cmd)).toEqual([]);
  });

  it('takes an option whose value the judge cannot read at its worst, and a word that may be any option as unsure', () => {
    const unknown = (t: string): OptWord => ({ t, known: false });
    expect(codeOptionReasons('npm', [{ t: 'test', known: true }, unknown('$OPTS')]).join()).toMatch(/built at run time/);
    expect(codeOptionReasons('npm', [{ t: 'test', known: true }, { t: '-w', known: true }, unknown('$W')]).join()).toMatch(/-w names a workspace/);
    expect(codeOptionReasons('npm', [{ t: 'test', known: true }, unknown('--script-shell=$X')]).join()).toMatch(/--script-shell/);
    expect(codeOptionReasons('npm', [{ t: 'test', known: true }, unknown('-q$X')]).join()).toMatch(/built at run time/);
    expect(codeOptionReasons('pytest', [unknown('-p$X')]).join()).toMatch(/-p loads a plugin/);
    // What is computed is only the value of an inert option.
    expect(codeOptionReasons('make', [unknown('-j$(nproc)')])).toEqual([]);
    expect(codeOptionReasons('pytest', [{ t: '-k', known: true }, unknown('$K')])).toEqual([]);
    // A word that starts with a literal character cannot become an option.
    expect(codeOptionReasons('pytest', [unknown('tests/$NAME')])).toEqual([]);
  });

  it('names the environment build tools read as options', () => {
    for (const v of ['npm_config_script_shell', 'NPM_CONFIG_USERCONFIG', 'YARN_RC_FILENAME', 'PYTEST_ADDOPTS', 'PYTEST_PLUGINS', 'CARGO_TARGET_X_RUNNER', 'RUSTC_WRAPPER', 'RUSTFLAGS', 'GOFLAGS', 'PIP_CONFIG_FILE', 'TOX_OVERRIDE', 'GRADLE_OPTS', 'MAVEN_OPTS', 'JAVA_TOOL_OPTIONS', 'MAKEFLAGS', 'PYTHONBREAKPOINT']) {
      expect(codeEnvReason(v), v).toMatch(new RegExp(`^${v} \\(`));
    }
    for (const v of ['CI', 'NODE_ENV', 'FORCE_COLOR', 'GOOS', 'RUST_LOG', 'PATH_X']) expect(codeEnvReason(v), v).toBeUndefined();
  });

  it('is consistent: every family has reasons, no option is both code and inert unless only some values are code', () => {
    for (const [name, f] of Object.entries(CODE_OPTION_FAMILIES)) {
      expect(familyOf(name)).toBe(f);
      for (const [opt, rule] of Object.entries(f.code)) {
        expect(rule.why.trim(), `${name} ${opt}`).not.toBe('');
        if (!rule.when) expect(f.inert.includes(opt) || f.inertValued.includes(opt), `${name} ${opt} is code and inert`).toBe(false);
      }
    }
    expect(familyOf('python3.12')).toBe(CODE_OPTION_FAMILIES.python);
    expect(familyOf('git')).toBeUndefined();
  });

  it('reads --opt=value, --opt value, glued and bundled short options and where each ends', () => {
    const f = CODE_OPTION_FAMILIES.pytest!;
    expect(readOptions(f, words('-qx -k a -ra --tb=short -pno:x tests/')).map((i) => [i.kind, i.name, i.at, i.end])).toEqual([
      ['inert', '-q', 0, 1], ['inert', '-x', 0, 1], ['inert', '-k', 1, 3], ['inert', '-r', 3, 4], ['inert', '--tb', 4, 5], ['inert', '-p', 5, 6], ['positional', 'tests/', 6, 7],
    ]);
  });
});

describe('what a command-prefix grant covers (the table\'s inert words)', () => {
  it.each([
    ['npm test', 'npm test'], ['npm test -- --watch', 'npm test'], ['npm test --silent', 'npm test'], ['npm test -s', 'npm test'],
    ['npm test src/a.test.ts', 'npm test'], ['npm test -- --shard=1', 'npm test'], ['make test -j4', 'make test'], ['make test -j 4 -k', 'make test'],
    ['pytest -q tests/ -k name', 'pytest'], ['pytest -p no:cacheprovider', 'pytest'], ['cargo test --release', 'cargo test'],
    ['cargo test name -- --nocapture', 'cargo test'], ['go test -v -run X ./...', 'go test'], ['python3 -m pytest -q', 'python3 -m pytest'],
    ['mvn test -Dtest=Foo', 'mvn test'], ['git status --short', 'git status'],
  ])('%s is covered by %s:*', (cmd, granted) => {
    expect(extra(cmd, granted)).toEqual({ ok: true });
  });

  it.each([
    ['npm test --node-options=--import=x', 'npm test', /--node-options/],
    ['npm test --script-shell=/tmp/x', 'npm test', /--script-shell/],
    ['npm test --foo', 'npm test', /--foo is not known to be inert/],
    ['npm test -- /etc/passwd', 'npm test', /\/etc\/passwd is not known/],
    ['npm test -- --require=x', 'npm test', /--require/],
    ['make test SHELL=/tmp/x', 'make test', /SHELL/],
    ['make test install', 'make test', /install is not known/],
    ['make test CC=/tmp/x', 'make test', /CC=\/tmp\/x is not known/],
    ['pytest -p evil', 'pytest', /-p loads a plugin/],
    ['pytest ../elsewhere', 'pytest', /\.\.\/elsewhere is not known/],
    ['cargo test --config a=b', 'cargo test', /--config/],
    ['python3 -m pytest -p evil', 'python3 -m pytest', /-p loads/],
    ['python3 -m pytest', 'python3', /before the module/],
    ['mvn test exec:exec', 'mvn test', /exec:exec is not known/],
  ])('%s is not covered by %s:*', (cmd, granted, why) => {
    const r = extra(cmd, granted);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(why);
  });
});

describe('the judge: unsure whatever the autonomy level', () => {
  beforeAll(async () => {
    await initExtractor();
  });
  const judge = (command: string) => extract({ id: 'c', agent: 'a', session: 's', tool: 'Bash', arguments: { command }, cwd: '/home/u/proj', source: 'mcp', receivedAt: 0 }, { home: '/home/u' });

  it.each([
    'npm test --script-shell=/tmp/x',
    'sudo npm test --script-shell=/tmp/x',
    'env npm_config_script_shell=/tmp/x npm test',
    'env NODE_OPTIONS=--require=/tmp/x.js npm test',
    'npm_config_node_options=--require=/tmp/x.js npm test',
    'OPTS=--script-shell=/tmp/x; npm test $OPTS',
    'make test SHELL=/tmp/x',
    'python3 -m pytest --pdbcls=os:system',
    'cd sub && pytest -p evil',
  ])('%s is evasive', (command) => {
    const x = judge(command);
    expect(x.evasive, x.evasiveReasons.join('; ')).toBe(true);
    expect(x.operations).toContain('execute');
  });
});

// ---- through a real host -------------------------------------------------------------------------

interface HookReply {
  decision: string;
  reason: string;
}

describe('prefix grants through a real host (gatehouse serve, the HTTP hook, approvals.grant)', () => {
  // The host judges each call as it would an agent's: on a busy machine that takes a while.
  it('cover the granted command and inert extras; options that name code, and unknown ones, are asked', { timeout: 240_000 }, async () => {
    const base = tempDir('gatehouse-code-options-');
    const home = join(base, 'home');
    const gh = join(home, '.config', 'gatehouse');
    const proj = join(home, 'proj');
    mkdirSync(gh, { recursive: true, mode: 0o700 });
    mkdirSync(proj, { recursive: true });
    // Live (a hook call is never executed by Gatehouse) and supervised: without a grant, every one
    // of these asks. Asked calls first wait in the inbox, so the operator can grant them.
    writeFileSync(join(gh, 'settings.json'), JSON.stringify({ mode: 'live', autonomy: 'supervised', hookAsk: 'inbox' }), { mode: 0o600 });
    const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), GATEHOUSE_NO_ELECTRON: '1', NO_COLOR: '1' };
    const served: ServedHost = await startServe(cliPath, gh, env);
    const host: ChildProcess = served.host;
    const exited = new Promise((resolve) => host.once('exit', resolve));
    const waiting = new Map<string, (id: string) => void>();
    const added: string[] = [];
    const ws = await watchInbox(served.serve, (id) => {
      const next = waiting.values().next();
      if (next.done) added.push(id);
      else next.value(id);
    });
    try {
      const hook = async (command: string): Promise<HookReply> => {
        const res = await fetch(served.serve.hookUrl, {
          method: 'POST',
          headers: { authorization: `Bearer ${served.serve.agentToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({ session_id: 'code-options', cwd: proj, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command } }),
        });
        const body = (await res.json()) as { hookSpecificOutput?: { permissionDecision?: string; permissionDecisionReason?: string } };
        return { decision: body.hookSpecificOutput?.permissionDecision ?? 'none', reason: body.hookSpecificOutput?.permissionDecisionReason ?? '' };
      };
      // The operator grants `prefix:*` on the waiting call `command`, as the console does.
      const grant = async (command: string, prefix: string): Promise<void> => {
        const inbox = new Promise<string>((resolve) => waiting.set(command, resolve));
        const answer = hook(command);
        // Answered without waiting in the inbox: say so rather than wait for an item that never comes.
        const first = await Promise.race([inbox, answer.then((a) => a)]);
        waiting.delete(command);
        if (typeof first !== 'string') throw new Error(`${command} was answered (${JSON.stringify(first)}) instead of waiting for the operator`);
        const id = first;
        const item = (await served.op('approvals.get', { id })) as { argsHash: string; call: { arguments: { command?: string } } };
        expect(item.call.arguments.command).toBe(command);
        await served.op('approvals.grant', { id, argsHash: item.argsHash, kind: 'command', value: `${prefix}:*`, scope: 'agent', minutes: 30 });
        expect(await answer).toMatchObject({ decision: 'allow' });
      };
      await grant('npm test', 'npm test');
      await grant('make test', 'make test');
      await grant('pytest', 'pytest');
      await grant('cargo test', 'cargo test');
      expect(added).toEqual([]);
      // From here an asked call is answered "ask" at once.
      await served.op('settings.update', { hookAsk: 'agent' });

      const allowed = [
        'npm test', 'npm test -- --watch', 'npm test --silent', 'npm test -s src/a.test.ts', 'make test', 'make test -j4', 'pytest -q tests/',
        'pytest -k name -x', 'pytest -p no:cacheprovider', 'cargo test', 'cargo test --release', 'cargo test my_test -- --nocapture',
      ];
      const asked = [
        "npm test --node-options='--import=data:text/javascript,console.log(1)'",
        'npm test --script-shell=/tmp/x',
        'npm test --prefix /tmp/x',
        'npm test --unknown-flag',
        'make test SHELL=/tmp/x',
        'make test -f /tmp/Makefile',
        'make test deploy',
        'pytest -p evil',
        'pytest --pdbcls=os:system',
        'pytest -o addopts=-pevil',
        "cargo test --config 'target.x86_64-unknown-linux-gnu.runner=\"/tmp/x\"'",
        'cargo test --manifest-path /tmp/x/Cargo.toml',
      ];
      // One at a time: sent together on a busy machine, calls queued behind each other for the
      // judge can pass its deadline and be asked as unsure, which is not what is tested here.
      for (const command of allowed) {
        const r = await hook(command);
        expect(r, command).toMatchObject({ decision: 'allow' });
        expect(r.reason, command).toMatch(/grant/);
      }
      for (const command of asked) expect(await hook(command), command).toMatchObject({ decision: 'ask' });
    } finally {
      ws.close();
      host.kill('SIGTERM');
      await exited;
    }
  });
});
