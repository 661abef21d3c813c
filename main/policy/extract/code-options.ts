// Options that run code are code (issue #24): build tools and interpreters run whatever their own
// options, `VAR=value` arguments and environment name — `npm test --script-shell=/tmp/x` runs
// /tmp/x, `pytest --pdbcls=os:system` calls os.system, `cargo test --config 'target.….runner=…'`
// runs the runner. One table per program family says which options name a program, a module, a
// config file or a folder to work from (any of them makes the call unsure: asked at every
// autonomy level, never covered by a grant), and which options are known to be inert (all a
// command-prefix grant may add to the command as granted).
//
// Security-sensitive: an option missing from `code` is judged like an ordinary option (allowed at
// full autonomy); an option added to `inert` is covered by every prefix grant of its program.
// When in doubt, leave an option out of `inert` (the grant then asks) rather than out of `code`.

export interface OptionRule {
  why: string;
  /** Takes a value: `--opt=v`, `--opt v`, `-ov`, `-o v`. */
  value?: boolean;
  /** Only some values name code (`-p no:x` disables a plugin; `-w pkg` is a workspace inside the project). */
  when?: (value: string) => boolean;
}

export interface ProgramFamily {
  /** How reasons name the program. */
  label: string;
  /** Options that name code, a config file or a folder to work from. Go and mvn spell long options with one dash. */
  code: Record<string, OptionRule>;
  /** Options without a value known to change nothing about what runs. */
  inert: string[];
  /** Options with a value known to change nothing about what runs (`-k EXPR`, `-j 4`). */
  inertValued: string[];
  /** Options that take a value and are neither (only so the words after them are read right). */
  otherValued?: string[];
  /** Options whose value is optional, taken when it matches (make's `-j`, `-j4`, `-j 4`). */
  optional?: Record<string, RegExp>;
  /** Options after which every word is the program's own argument (python's `-c CODE`, `-m MOD`). */
  endsOptions?: string[];
  /** `VAR=value` arguments that name code (make). Any other assignment is not inert. */
  argVars?: Record<string, string>;
  /** Environment variables (exact names, or prefixes ending in `*`) the program reads as options. */
  env?: Record<string, string>;
  /** The first argument (cargo's `+toolchain`). */
  lead?: (word: string) => string | null;
  /** A positional word that names code (mvn's `group:artifact:version:goal`). */
  positional?: (word: string) => string | null;
  /** Words after `--` go to a script or test binary (npm, cargo) rather than being positional. */
  forwards: boolean;
  /** Forwarded words are judged against FORWARDED_CODE (the script is most likely a test runner). */
  forwardedCode?: boolean;
  /** Options end at the first positional word, which is the script (node, python). */
  untilPositional?: boolean;
  /** Extra positional words (test names, paths inside the project) are inert. Targets, tasks and goals are not. */
  positionalInert: boolean;
  /**
   * A command that keeps such an option in the program's config for every later run (`npm config
   * set script-shell /tmp/x`, `go env -w GOFLAGS=…`): why, or null. `pos`: the positional words.
   */
  configWrite?: (pos: string[], args: readonly OptWord[]) => string | null;
  /** Single-dash words are whole option names (`-exec`, `-gs`) before they are letter bundles. */
  singleDashLong?: boolean;
}

/** A path outside the project: absolute, from home, or climbing out. */
export function outsideProject(v: string): boolean {
  return v.startsWith('/') || v.startsWith('~') || /(^|[/{\\])\.\.([/}\\]|$)/.test(v);
}

const always = (why: string): OptionRule => ({ why, value: true });

/** A `key=value` or `key value` pair at `pairs[i]`: the key, its value, and where the next pair starts. */
function pairAt(pairs: string[], i: number): { key: string; value: string; next: number } {
  const p = pairs[i] as string;
  const eq = p.indexOf('=');
  return eq > 0 ? { key: p.slice(0, eq), value: p.slice(eq + 1), next: i + 1 } : { key: p, value: pairs[i + 1] ?? '', next: i + 2 };
}

/** Is one of `pairs` a code option of `code` (keys spelled as config keys: `script-shell`, `script_shell`, `--script-shell`)? */
function setsCodeKey(code: Record<string, OptionRule>, pairs: string[], keyOf: (key: string) => string): string | null {
  for (let i = 0; i < pairs.length; ) {
    const { key, value, next } = pairAt(pairs, i);
    const opt = keyOf(key);
    const rule = Object.hasOwn(code, opt) ? code[opt] : undefined;
    if (rule && (!rule.when || rule.when(value))) return `config set ${key} keeps an option that ${rule.why}, for every later run`;
    i = next;
  }
  return null;
}

/** `npm config set KEY VALUE`, `npm set KEY=VALUE`, `pnpm config set …`, `yarn config set …`. */
const npmConfigWrite = (code: Record<string, OptionRule>) => (pos: string[]): string | null => {
  const [a, b, ...rest] = pos;
  const pairs = a === 'set' ? [b ?? '', ...rest] : (a === 'config' || a === 'c') && b === 'set' ? rest : null;
  return pairs ? setsCodeKey(code, pairs.filter(Boolean), (k) => '--' + k.replace(/^--/, '').replace(/_/g, '-')) : null;
};

// ---- npm, pnpm, yarn, bun ------------------------------------------------------------------------

/** npm reads any config as a `--key` flag; these configs name a program, a module, a config file or a folder. */
const NPM_CONFIG_CODE: Record<string, OptionRule> = {
  '--node-options': always('passes options to every node it starts (--import, --require run code)'),
  '--script-shell': always('names the shell that runs package scripts'),
  '--shell': always('names the shell npm exec and explore run'),
  '--prefix': always('names the folder npm works from (its package.json scripts run)'),
  '-C': always('names the folder npm works from (its package.json scripts run)'),
  '--userconfig': always('names an npmrc to read (it can set the script shell, node options, …)'),
  '--globalconfig': always('names an npmrc to read (it can set the script shell, node options, …)'),
  '--call': always('is a shell command npm exec runs'),
  '-c': always('is a shell command npm exec runs'),
  '--workspace': { why: 'names a workspace folder outside the project (its scripts run)', value: true, when: outsideProject },
  '-w': { why: 'names a workspace folder outside the project (its scripts run)', value: true, when: outsideProject },
  '--cache': always('names the package cache folder (what is installed and run comes from it)'),
  '--git': always('names the program npm runs for git dependencies'),
  '--node-gyp': always('names the program npm runs to build native modules'),
  '--editor': always('names a program npm runs'),
  '--viewer': always('names a program npm runs'),
  '--browser': always('names a program npm runs'),
  '--init-module': always('names a module npm init runs'),
  '--onload-script': always('names a module npm loads'),
};

/** Configs and npm's own flags that change nothing about what runs (`npm test --silent`). */
const NPM_INERT = [
  '--silent', '-s', '--quiet', '-q', '--verbose', '-d', '-dd', '-ddd', '--coverage', '--watch', '--if-present', '--ignore-scripts',
  '--foreground-scripts', '--json', '--parseable', '--long', '-l', '--workspaces', '-ws', '--include-workspace-root', '--no-audit',
  '--no-fund', '--no-progress', '--progress', '--color', '--no-color', '--offline', '--prefer-offline', '--prefer-online', '--timing',
  '--yes', '-y', '--legacy-peer-deps', '--save', '--save-dev', '-D', '--save-exact', '-E', '--save-optional', '-O', '--no-save',
  '--production', '--dry-run', '--force', '-f', '--strict-peer-deps', '--no-package-lock', '--package-lock-only',
];
const NPM_INERT_VALUED = ['--loglevel', '--omit', '--include', '--tag', '--install-strategy', '--before'];
const NPM_VALUED = ['--registry', '--otp', '--access', '--package', '-p', '--filter', '--reporter'];

const NPM_ENV = {
  'npm_config_*': 'npm reads every option from npm_config_* variables (the script shell, node options, the prefix, …)',
  'NPM_CONFIG_*': 'npm reads every option from npm_config_* variables (the script shell, node options, the prefix, …)',
  npm_execpath: 'scripts run the program it names as npm',
  npm_node_execpath: 'scripts run the program it names as node',
};

const npm: ProgramFamily = {
  label: 'npm', code: NPM_CONFIG_CODE, inert: NPM_INERT, inertValued: NPM_INERT_VALUED, otherValued: NPM_VALUED,
  env: NPM_ENV, forwards: true, forwardedCode: true, positionalInert: true, configWrite: npmConfigWrite(NPM_CONFIG_CODE),
};

const PNPM_CODE: Record<string, OptionRule> = {
    // pnpm's -w is --workspace-root, a flag (below).
    ...Object.fromEntries(Object.entries(NPM_CONFIG_CODE).filter(([k]) => k !== '-w')),
    '-C': always('names the folder pnpm works from (its package.json scripts run)'),
    '--dir': always('names the folder pnpm works from (its package.json scripts run)'),
    '--filter': { why: 'selects packages in a folder outside the project (their scripts run)', value: true, when: outsideProject },
    '-F': { why: 'selects packages in a folder outside the project (their scripts run)', value: true, when: outsideProject },
    '--pnpmfile': always('names a pnpmfile (a module pnpm runs)'),
    '--global-pnpmfile': always('names a pnpmfile (a module pnpm runs)'),
    '--store-dir': always('names the package store folder'),
    '--virtual-store-dir': always('names the virtual store folder'),
    '--modules-dir': always('names the folder modules are installed to'),
    '--global-dir': always('names the global packages folder'),
    '--config-dir': always('names the folder pnpm reads its config from'),
};

const pnpm: ProgramFamily = {
  ...npm,
  label: 'pnpm',
  code: PNPM_CODE,
  configWrite: npmConfigWrite(PNPM_CODE),
  // pnpm's -w is --workspace-root, a flag.
  inert: [...NPM_INERT, '--recursive', '-r', '--workspace-root', '-w', '--frozen-lockfile', '--stream', '--parallel', '--aggregate-output'],
  env: { ...NPM_ENV, 'PNPM_CONFIG_*': 'pnpm reads options from pnpm_config_* variables', 'pnpm_config_*': 'pnpm reads options from pnpm_config_* variables' },
};

const YARN_CODE: Record<string, OptionRule> = {
    ...NPM_CONFIG_CODE,
    '--cwd': always('names the folder yarn works from (its package.json scripts run)'),
    '--use-yarnrc': always('names a yarnrc to read'),
    '--modules-folder': always('names the folder modules are installed to'),
    '--global-folder': always('names the global packages folder'),
    '--cache-folder': always('names the package cache folder'),
    '--preferred-cache-folder': always('names the package cache folder'),
    '--link-folder': always('names the folder of linked packages'),
    // Yarn 2+ settings (`yarn config set yarnPath x.cjs`): the yarn that runs, plugins it loads.
    '--yarnPath': always('names the yarn release (a script) that runs'),
    '--plugins': always('names plugins (code) yarn loads'),
    '--rcFilename': always('names the rc file yarn reads'),
    '--injectEnvironmentFiles': always('names environment files (NODE_OPTIONS) yarn loads'),
};

const yarn: ProgramFamily = {
  ...npm,
  label: 'yarn',
  code: YARN_CODE,
  configWrite: npmConfigWrite(YARN_CODE),
  inert: [...NPM_INERT, '--frozen-lockfile', '--immutable', '--non-interactive', '--pure-lockfile'],
  env: { ...NPM_ENV, 'YARN_*': 'yarn reads every setting from YARN_* variables (the rc file, folders, plugins, …)' },
};

const bun: ProgramFamily = {
  label: 'bun',
  code: {
    '--cwd': always('names the folder bun works from'),
    '--config': always('names a bunfig (it can preload modules)'),
    '-c': always('names a bunfig (it can preload modules)'),
    '--preload': always('names a module bun loads first'),
    '--require': always('names a module bun loads first'),
    '-r': always('names a module bun loads first'),
    '--import': always('names a module bun loads first'),
    '--env-file': always('names an environment file to load (it can set NODE_OPTIONS, BUN_* settings)'),
    '--shell': always('names the shell that runs package scripts'),
    '--inspect': { why: 'opens a debugger anyone on the port can run code through', value: false },
    '--inspect-brk': { why: 'opens a debugger anyone on the port can run code through', value: false },
    '--inspect-wait': { why: 'opens a debugger anyone on the port can run code through', value: false },
  },
  inert: ['--silent', '--watch', '--hot', '--bail', '--coverage', '--only', '--todo', '--update-snapshots', '-u', '--frozen-lockfile', '--production', '--if-present'],
  inertValued: ['--timeout', '--test-name-pattern', '-t', '--rerun-each'],
  env: { 'BUN_*': 'bun reads settings from BUN_* variables' },
  forwards: true, forwardedCode: true, positionalInert: true,
};

// ---- make ----------------------------------------------------------------------------------------

const make: ProgramFamily = {
  label: 'make',
  code: {
    '-f': always('names the makefile (its recipes are shell code)'),
    '--file': always('names the makefile (its recipes are shell code)'),
    '--makefile': always('names the makefile (its recipes are shell code)'),
    '-C': always('names the folder make works from (its makefile runs)'),
    '--directory': always('names the folder make works from (its makefile runs)'),
    '-I': always('names a folder of makefiles to include'),
    '--include-dir': always('names a folder of makefiles to include'),
    '--eval': always('is makefile text given on the command line'),
    '-E': always('is makefile text given on the command line'),
  },
  argVars: {
    SHELL: 'names the shell that runs every recipe',
    '.SHELLFLAGS': 'passes options to the shell that runs every recipe',
    MAKEFLAGS: 'passes options to make and every sub-make (-f, -C, --eval, …)',
    MFLAGS: 'passes options to every sub-make',
    GNUMAKEFLAGS: 'passes options to make',
    MAKEFILES: 'names makefiles make reads first',
    MAKE: 'names the program recursive recipes run as make',
    MAKESHELL: 'names the shell that runs every recipe',
  },
  inert: [
    '-k', '--keep-going', '-s', '--silent', '--quiet', '-w', '--print-directory', '--no-print-directory', '-n', '--dry-run',
    '--just-print', '--recon', '-B', '--always-make', '-i', '--ignore-errors', '-r', '--no-builtin-rules', '-R',
    '--no-builtin-variables', '-q', '--question', '--trace', '-S', '--no-keep-going', '--stop', '-d', '-p', '--print-data-base',
  ],
  inertValued: ['-O', '--output-sync', '--load-average', '--max-load', '--debug', '--jobs'],
  // `-j` alone means "no limit"; `-j4` and `-j 4` give one: all inert.
  optional: { '-j': /^\d+$/, '-l': /^[\d.]+$/ },
  otherValued: ['-o', '--old-file', '--assume-old', '-W', '--what-if', '--new-file', '--assume-new'],
  env: {
    MAKEFLAGS: 'passes options to make and every sub-make (-f, -C, --eval, …)',
    MFLAGS: 'passes options to every sub-make',
    GNUMAKEFLAGS: 'passes options to make',
    MAKEFILES: 'names makefiles make reads first',
  },
  forwards: false, positionalInert: false,
};

// ---- python, pytest, pip, tox --------------------------------------------------------------------

/** `-W action:message:category:…`: a dotted category is imported to find the class. */
const importsWarningCategory = (v: string): boolean => (v.split(':')[2] ?? '').includes('.');

const PYTHON_ENV = {
  PYTHONBREAKPOINT: 'names the callable breakpoint() runs (os.system is one)',
  PYTHONWARNINGS: 'a warning filter whose category is imported',
  PYTHONUSERBASE: 'names the user site folder (its .pth files run)',
  PYTHONPLATLIBDIR: 'changes where the standard library is loaded from',
  PYTHONEXECUTABLE: 'names the program sys.executable says python is',
};

const python: ProgramFamily = {
  label: 'python',
  code: {
    '-W': { why: 'a warning filter whose category is imported (a module of the caller\'s choosing)', value: true, when: importsWarningCategory },
    '-X': { why: 'presite imports a module before the program', value: true, when: (v) => v.startsWith('presite') },
  },
  inert: ['-u', '-B', '-O', '-OO', '-E', '-I', '-s', '-S', '-P', '-q', '-v', '-b', '-bb', '-d', '-x', '-R'],
  inertValued: [],
  otherValued: ['-c', '-m', '-Q', '--check-hash-based-pycs'],
  endsOptions: ['-c', '-m'],
  env: PYTHON_ENV,
  forwards: true, untilPositional: true, positionalInert: true,
};

const pytest: ProgramFamily = {
  label: 'pytest',
  code: {
    '-p': { why: 'loads a plugin module', value: true, when: (v) => !v.startsWith('no:') },
    '-o': always('overrides an ini setting (addopts, python_files, plugins, the cache folder)'),
    '--override-ini': always('overrides an ini setting (addopts, python_files, plugins, the cache folder)'),
    '-c': always('names the config file to read'),
    '--config-file': always('names the config file to read'),
    '--inifile': always('names the config file to read'),
    '--rootdir': always('names the folder pytest works from (its conftest.py files run)'),
    '--confcutdir': always('names the folder pytest collects conftest.py files up to'),
    '--pdbcls': always('names a class pytest calls on failures (os:system is one)'),
    '--basetemp': always('names a folder pytest empties and writes'),
    '--cov-config': always('names a coverage config (it can load plugins)'),
    '--tx': always('names where and how xdist starts its workers (a python, ssh, a socket)'),
    '--rsyncdir': always('names a folder xdist copies'),
    '--ds': always('names the Django settings module pytest imports'),
    '--dc': always('names the Django configuration class pytest imports'),
    '-W': { why: 'a warning filter whose category is imported', value: true, when: importsWarningCategory },
    '--pythonwarnings': { why: 'a warning filter whose category is imported', value: true, when: importsWarningCategory },
  },
  inert: [
    '-q', '--quiet', '-v', '--verbose', '-x', '--exitfirst', '-s', '-l', '--showlocals', '--lf', '--last-failed', '--ff', '--failed-first',
    '--nf', '--new-first', '--sw', '--stepwise', '--sw-skip', '--no-header', '--no-summary', '--co', '--collect-only', '--disable-warnings',
    '--disable-pytest-warnings', '--strict-markers', '--strict-config', '--strict', '--runxfail', '--setup-show', '--setup-only',
    '--setup-plan', '--cache-show', '--cache-clear', '--pdb', '--trace', '--full-trace', '--noconftest', '--doctest-modules', '--cov',
    '--no-cov', '--markers', '--fixtures', '--fixtures-per-test', '--version', '-V', '-h', '--help', '--import-mode',
  ],
  inertValued: [
    '-k', '-m', '-r', '--tb', '--maxfail', '--durations', '-n', '--numprocesses', '--capture', '--color', '--code-highlight',
    '--deselect', '--ignore', '--ignore-glob', '--timeout', '--count', '--dist', '--maxprocesses', '--show-capture', '--log-level',
    '--log-cli-level', '--cov-report', '--reruns', '--randomly-seed', '--asyncio-mode', '--doctest-glob', '--verbosity', '--durations-min',
  ],
  otherValued: ['--junitxml', '--junit-xml', '--log-file', '--html', '--result-log', '--debug'],
  env: {
    PYTEST_ADDOPTS: 'adds options to every pytest run (-p, --pdbcls, -o …)',
    PYTEST_PLUGINS: 'names plugin modules pytest loads',
    PYTEST_DEBUG_TEMPROOT: 'names the folder pytest empties and writes',
  },
  forwards: false, positionalInert: true,
};

const pip: ProgramFamily = {
  label: 'pip',
  code: {
    '-r': { why: 'reads a requirements file outside the project (it can name any package, index or option)', value: true, when: outsideProject },
    '--requirement': { why: 'reads a requirements file outside the project (it can name any package, index or option)', value: true, when: outsideProject },
    '-c': { why: 'reads a constraints file outside the project', value: true, when: outsideProject },
    '--constraint': { why: 'reads a constraints file outside the project', value: true, when: outsideProject },
    '-e': { why: 'installs (and builds, running its code) a project outside this one', value: true, when: outsideProject },
    '--editable': { why: 'installs (and builds, running its code) a project outside this one', value: true, when: outsideProject },
    '--src': always('names the folder editable checkouts go to'),
    '-C': always('passes settings to the build backend (any option, any program)'),
    '--config-settings': always('passes settings to the build backend (any option, any program)'),
    '--global-option': always('passes options to setup.py (it runs them)'),
    '--build-option': always('passes options to setup.py (it runs them)'),
    '--install-option': always('passes options to setup.py (it runs them)'),
    '-t': always('installs into a folder of the caller\'s choosing (code imported from there runs)'),
    '--target': always('installs into a folder of the caller\'s choosing (code imported from there runs)'),
    '--prefix': always('installs under a folder of the caller\'s choosing'),
    '--root': always('installs under a folder of the caller\'s choosing'),
    '--python': always('names the python pip runs as'),
    '--cache-dir': always('names the cache folder packages are taken from'),
    '-f': { why: 'takes packages from a folder outside the project', value: true, when: outsideProject },
    '--find-links': { why: 'takes packages from a folder outside the project', value: true, when: outsideProject },
  },
  inert: [
    '-q', '--quiet', '-v', '--verbose', '-U', '--upgrade', '--user', '--no-deps', '--no-cache-dir', '--pre', '--dry-run',
    '--require-hashes', '--no-build-isolation', '--break-system-packages', '--disable-pip-version-check', '--no-input', '--isolated',
    '--force-reinstall', '--ignore-installed', '-I', '--no-color', '--only-binary', '--no-binary', '--no-index', '--use-pep517',
  ],
  inertValued: ['--progress-bar', '--upgrade-strategy', '--exists-action', '--timeout', '--retries'],
  otherValued: ['-i', '--index-url', '--extra-index-url', '--trusted-host', '--proxy', '--cert', '--client-cert', '--log', '--report', '--platform', '--python-version', '--implementation', '--abi', '-d', '--dest'],
  env: { 'PIP_*': 'pip reads every option from PIP_* variables (its config file, --target, --src, …)' },
  // `pip config set install.target /tmp/x`: the key is a section and an option.
  configWrite: (pos) => (pos[0] === 'config' && pos[1] === 'set' ? setsCodeKey(pip.code, pos.slice(2), (k) => '--' + k.slice(k.indexOf('.') + 1).replace(/_/g, '-')) : null),
  forwards: false, positionalInert: true,
};

const tox: ProgramFamily = {
  label: 'tox',
  code: {
    '-c': always('names the tox config (its commands run)'),
    '--conf': always('names the tox config (its commands run)'),
    '--configfile': always('names the tox config (its commands run)'),
    '--workdir': always('names the folder tox builds environments in'),
    '--root': always('names the folder tox works from'),
    '-x': always('overrides a config setting (commands, deps, …)'),
    '--override': always('overrides a config setting (commands, deps, …)'),
    '--installpkg': always('installs a package file of the caller\'s choosing'),
    '--discover': always('names python programs tox may run'),
    '--devenv': always('names a folder tox builds an environment in'),
  },
  inert: ['-q', '-v', '-vv', '-r', '--recreate', '--notest', '--skip-missing-interpreters', '-p', '--parallel', '--parallel-live', '-o', '--no-recreate-pkg', '--skip-pkg-install'],
  inertValued: ['-e', '--env', '-m', '-f', '--hashseed', '--colored', '--exit-and-dump-after'],
  otherValued: ['--result-json'],
  env: { 'TOX_*': 'tox reads settings from TOX_* variables (its config file, overrides, work folder)' },
  forwards: true, forwardedCode: true, positionalInert: false,
};

// ---- cargo, go -----------------------------------------------------------------------------------

const cargo: ProgramFamily = {
  label: 'cargo',
  code: {
    '--config': always('sets any configuration (target.<triple>.runner, build.rustc-wrapper name programs) or names a config file'),
    '--manifest-path': always('names the package to build (its build.rs runs)'),
    '-Z': always('turns on unstable features'),
    '-C': always('names the folder cargo works from (its build.rs runs)'),
    '--lockfile-path': always('names the lock file cargo reads'),
  },
  lead: (w) => (w.startsWith('+') ? 'a +toolchain names the toolchain (the programs) cargo runs' : null),
  inert: [
    '--release', '-r', '--lib', '--bins', '--tests', '--benches', '--examples', '--all-targets', '--doc', '--no-run', '--no-fail-fast',
    '--workspace', '--all', '--all-features', '--no-default-features', '--keep-going', '-q', '--quiet', '-v', '-vv', '--verbose',
    '--frozen', '--locked', '--offline', '--timings', '--future-incompat-report', '--ignore-rust-version',
  ],
  inertValued: ['--bin', '--test', '--bench', '--example', '-p', '--package', '--exclude', '-F', '--features', '-j', '--jobs', '--profile', '--target', '--color', '--message-format'],
  otherValued: ['--target-dir', '--registry', '--index'],
  env: {
    'CARGO_*': 'cargo reads every setting from CARGO_* variables (runners, wrappers, its home)',
    RUSTC_WRAPPER: 'names a program cargo runs around rustc',
    RUSTC_WORKSPACE_WRAPPER: 'names a program cargo runs around rustc',
    RUSTC: 'names the compiler cargo runs',
    RUSTDOC: 'names the program cargo runs as rustdoc',
    RUSTFLAGS: 'passes flags to rustc (a linker, plugins)',
    RUSTDOCFLAGS: 'passes flags to rustdoc (a test runner, a linker)',
    RUSTUP_TOOLCHAIN: 'names the toolchain (the programs) cargo runs',
  },
  forwards: true, positionalInert: true,
};

const GO_ENV: Record<string, string> = {
  GOFLAGS: 'adds flags to every go command (-exec, -toolexec, -overlay, …)',
  GOENV: 'names the go environment file (it sets GOFLAGS, CC, …)',
  GOTOOLCHAIN: 'names the toolchain go downloads and runs',
  GOROOT: 'names the toolchain go runs',
};
/** Programs cgo runs, as `go env -w` keeps them. */
const GO_PROGRAM_VARS = ['CC', 'CXX', 'AR', 'PKG_CONFIG', 'GCCGO', 'CGO_CFLAGS', 'CGO_LDFLAGS', 'CGO_CXXFLAGS'];

const go: ProgramFamily = {
  label: 'go',
  code: {
    '-exec': always('names a program that runs the built binaries'),
    '-toolexec': always('names a program that runs every tool of the build'),
    '-vettool': always('names the program go vet runs'),
    '-overlay': always('names a file that swaps source files'),
    '-modfile': always('names the go.mod to read'),
    '-C': always('names the folder go works from'),
    '-pkgdir': always('names the folder built packages are taken from'),
    '-ldflags': { why: 'names an external linker program', value: true, when: (v) => /extld/.test(v) },
    '-gccgoflags': always('passes flags to gccgo'),
  },
  inert: ['-v', '-race', '-short', '-cover', '-benchmem', '-failfast', '-json', '-x', '-n', '-a', '-trimpath', '-msan', '-asan', '-c', '-i'],
  inertValued: [
    '-run', '-count', '-timeout', '-p', '-bench', '-benchtime', '-tags', '-cpu', '-parallel', '-shuffle', '-skip', '-list', '-mod',
    '-buildvcs', '-covermode', '-coverpkg', '-fuzz', '-fuzztime', '-vet', '-coverprofile', '-o', '-gcflags', '-asmflags', '-pgo',
  ],
  env: GO_ENV,
  // `go env -w GOFLAGS=-toolexec=…` keeps it in the go environment file for every later go command.
  configWrite: (pos, args) => {
    if (pos[0] !== 'env' || !args.some((a) => a.t === '-w' || a.t === '--w')) return null;
    const key = pos.slice(1).map((p) => p.split('=')[0] ?? p).find((k) => Object.hasOwn(GO_ENV, k) || GO_PROGRAM_VARS.includes(k));
    return key ? `env -w ${key} keeps a setting that names code, for every later go command` : null;
  },
  forwards: true, positionalInert: true, singleDashLong: true,
};

// ---- node ----------------------------------------------------------------------------------------

const INSPECT = { why: 'opens a debugger anyone on the port can run code through', value: false };
const node: ProgramFamily = {
  label: 'node',
  code: {
    '--require': always('names a module node loads first'),
    '-r': always('names a module node loads first'),
    '--import': always('names a module node loads first'),
    '--loader': always('names a module that loads every other one'),
    '--experimental-loader': always('names a module that loads every other one'),
    '--env-file': always('names an environment file (it can set NODE_OPTIONS)'),
    '--env-file-if-exists': always('names an environment file (it can set NODE_OPTIONS)'),
    '--experimental-config-file': always('names a node config file (it can name modules to load)'),
    '--openssl-config': always('names an OpenSSL config (it can load engine libraries)'),
    '--test-reporter': always('names a reporter module node loads'),
    '--snapshot-blob': always('names a startup snapshot (code) node runs'),
    '--inspect': INSPECT, '--inspect-brk': INSPECT, '--inspect-wait': INSPECT, '--inspect-port': always(INSPECT.why),
  },
  inert: [
    '--test', '--watch', '--test-only', '--enable-source-maps', '--no-warnings', '--trace-warnings', '--experimental-strip-types',
    '--experimental-vm-modules', '--preserve-symlinks', '--no-deprecation', '--trace-uncaught', '--experimental-test-coverage', '--version', '-v',
  ],
  inertValued: ['--test-name-pattern', '--test-concurrency', '--test-timeout', '--input-type', '-C', '--conditions', '--title', '--unhandled-rejections', '--max-old-space-size', '--stack-size', '--run'],
  otherValued: ['-e', '--eval', '-p', '--print'],
  forwards: true, untilPositional: true, positionalInert: true,
};

// ---- gradle, maven -------------------------------------------------------------------------------

const JVM_ENV = {
  JAVA_TOOL_OPTIONS: 'passes options to every JVM (-javaagent runs code)',
  JDK_JAVA_OPTIONS: 'passes options to every JVM (-javaagent runs code)',
  _JAVA_OPTIONS: 'passes options to every JVM (-javaagent runs code)',
  JAVA_OPTS: 'passes options to the build JVM (-javaagent runs code)',
};

const gradle: ProgramFamily = {
  label: 'gradle',
  code: {
    '-I': always('names an init script (code) gradle runs'),
    '--init-script': always('names an init script (code) gradle runs'),
    '-c': always('names the settings script (code) gradle runs'),
    '--settings-file': always('names the settings script (code) gradle runs'),
    '-b': always('names the build script (code) gradle runs'),
    '--build-file': always('names the build script (code) gradle runs'),
    '-p': always('names the folder gradle works from (its build scripts run)'),
    '--project-dir': always('names the folder gradle works from (its build scripts run)'),
    '-g': always('names gradle\'s home (its init scripts run)'),
    '--gradle-user-home': always('names gradle\'s home (its init scripts run)'),
    '--include-build': always('names another build (its scripts run)'),
    '--project-cache-dir': always('names the folder gradle caches the build in'),
    '-D': always('sets a system property of the build JVM (org.gradle.jvmargs, java home, …)'),
    '--system-prop': always('sets a system property of the build JVM (org.gradle.jvmargs, java home, …)'),
  },
  inert: [
    '--offline', '-q', '--quiet', '-i', '--info', '-d', '--debug', '-s', '--stacktrace', '-S', '--full-stacktrace', '--no-daemon',
    '--daemon', '--parallel', '--no-parallel', '--build-cache', '--no-build-cache', '--continue', '--rerun-tasks', '--rerun', '--dry-run', '-m',
    '--refresh-dependencies', '--no-configuration-cache', '--configuration-cache',
  ],
  inertValued: ['-x', '--exclude-task', '--tests', '--console', '--warning-mode', '--max-workers'],
  otherValued: ['-P', '--project-prop'],
  env: {
    ...JVM_ENV,
    GRADLE_OPTS: 'passes options to the gradle JVM (-javaagent runs code)',
    GRADLE_USER_HOME: 'names gradle\'s home (its init scripts run)',
  },
  forwards: false, positionalInert: false,
};

/** `-D` properties that only select or skip tests and checks. */
const MVN_INERT_PROPS = /^(skipTests|skipITs|maven\.test\.skip|test|it\.test|failIfNoTests|surefire\.failIfNoSpecifiedTests|checkstyle\.skip|spotless\.check\.skip|maven\.javadoc\.skip|gpg\.skip|jacoco\.skip|enforcer\.skip|style\.color|maven\.test\.failure\.ignore)(=|$)/;

const mvn: ProgramFamily = {
  label: 'mvn',
  code: {
    '-f': always('names the pom (its plugins run)'),
    '--file': always('names the pom (its plugins run)'),
    '-s': always('names the settings file (repositories, mirrors, …)'),
    '--settings': always('names the settings file (repositories, mirrors, …)'),
    '-gs': always('names the global settings file'),
    '--global-settings': always('names the global settings file'),
    '-t': always('names the toolchains file (the JDK programs maven runs)'),
    '--toolchains': always('names the toolchains file (the JDK programs maven runs)'),
    '-gt': always('names the global toolchains file'),
    '--global-toolchains': always('names the global toolchains file'),
    '-D': { why: 'sets a property plugins read (exec.executable, argLine, maven.repo.local name programs, JVM options, folders)', value: true, when: (v) => !MVN_INERT_PROPS.test(v) },
    '--define': { why: 'sets a property plugins read (exec.executable, argLine, maven.repo.local name programs, JVM options, folders)', value: true, when: (v) => !MVN_INERT_PROPS.test(v) },
  },
  positional: (w) => ((w.match(/:/g)?.length ?? 0) >= 2 ? 'names a plugin by its coordinates (maven downloads and runs it)' : null),
  inert: ['-q', '--quiet', '-e', '--errors', '-X', '--debug', '-B', '--batch-mode', '-o', '--offline', '-U', '--update-snapshots', '-N', '--non-recursive', '-V', '--show-version', '-C', '-c', '-fae', '--fail-at-end', '-ff', '--fail-fast', '-fn', '--fail-never', '-ntp', '--no-transfer-progress', '-am', '--also-make', '-amd', '--also-make-dependents', '-nsu'],
  inertValued: ['-T', '--threads', '-pl', '--projects', '-rf', '--resume-from', '-P', '--activate-profiles'],
  otherValued: ['-l', '--log-file', '-b', '--builder'],
  env: {
    ...JVM_ENV,
    MAVEN_OPTS: 'passes options to the maven JVM (-javaagent runs code)',
    MAVEN_ARGS: 'adds options to every mvn run (-s, -D…)',
  },
  forwards: false, positionalInert: false, singleDashLong: true,
};

/** Program names (as the judge reads them: no folder, no version suffix) to their family. */
export const CODE_OPTION_FAMILIES: Record<string, ProgramFamily> = {
  npm, pnpm, yarn, bun, make, gmake: make, python, python2: python, python3: python, pypy: python, pypy3: python,
  pytest, 'py.test': pytest, pip, pip3: pip, tox, cargo, go, node, nodejs: node, gradle, gradlew: gradle, mvn, mvnw: mvn,
};

/**
 * Options that tell a script or test runner (the words npm, pnpm, yarn, tox pass on after `--`) to
 * load a module, read a config or work from another folder: jest, vitest, mocha, node --test, pytest.
 */
const FORWARDED_CODE: Record<string, string> = {
  '--require': 'a module to load', '-r': 'a module to load', '--import': 'a module to load', '--loader': 'a module to load',
  '--experimental-loader': 'a module to load', '--config': 'a config (code) to load', '-c': 'a config (code) to load',
  '--config-file': 'a config to load', '--rootDir': 'a folder to work from', '--roots': 'folders to work from', '--root': 'a folder to work from',
  '--dir': 'a folder to work from', '--cwd': 'a folder to work from', '--prefix': 'a folder to work from', '--setupFiles': 'modules to load',
  '--setupFilesAfterEnv': 'modules to load', '--globalSetup': 'a module to load', '--globalTeardown': 'a module to load',
  '--testEnvironment': 'a module to load', '--env': 'a module to load', '--environment': 'a module to load', '--reporter': 'a module to load',
  '--reporters': 'modules to load', '-R': 'a module to load', '--preset': 'a module to load', '--transform': 'a module to load',
  '--resolver': 'a module to load', '--runner': 'a module to load', '--testRunner': 'a module to load', '--testSequencer': 'a module to load',
  '--snapshotResolver': 'a module to load', '--watchPlugins': 'modules to load', '--plugin': 'a module to load', '--plugins': 'modules to load',
  '--file': 'a module to load', '--ui': 'a module to load', '--node-option': 'node options', '--node-options': 'node options',
  '--exec': 'a program to run', '--shell': 'a program to run', '--script-shell': 'a program to run', '--inspect': 'a debugger port',
  '--inspect-brk': 'a debugger port', '-p': 'a plugin to load', '-o': 'an ini override', '--override-ini': 'an ini override',
  '--rootdir': 'a folder to work from', '--confcutdir': 'a folder to work from', '--pdbcls': 'a class to call', '--test-reporter': 'a module to load',
  '--globals': 'modules to load', '--workspace': 'a folder to work from', '--project': 'a folder to work from',
};

// ---- reading a command's words -------------------------------------------------------------------

/** A word of the command, and whether the judge knows its value. */
export interface OptWord {
  t: string;
  known: boolean;
}

export type ItemKind = 'code' | 'inert' | 'other' | 'positional' | 'forwarded' | 'unknown';

export interface Item {
  /** Index of the item's first word in the arguments, and of the word after it. */
  at: number;
  end: number;
  kind: ItemKind;
  /** The option or word, for reasons. */
  name: string;
  why?: string;
}

function envName(name: string, table: Record<string, string>): string | undefined {
  if (Object.hasOwn(table, name)) return table[name];
  for (const [k, why] of Object.entries(table)) {
    if (k.endsWith('*') && name.startsWith(k.slice(0, -1))) return why;
  }
  return undefined;
}

/** Why an environment variable set for a command makes a build tool load or run other code, or undefined. */
export function codeEnvReason(name: string): string | undefined {
  for (const [prog, f] of Object.entries(FAMILY_ENV)) {
    const why = envName(name, f);
    if (why) return `${name} (${prog}): ${why}`;
  }
  return undefined;
}
const FAMILY_ENV: Record<string, Record<string, string>> = Object.fromEntries(
  [...new Set(Object.values(CODE_OPTION_FAMILIES))].filter((f) => f.env).map((f) => [f.label, f.env as Record<string, string>]),
);

/** `VAR=value`, `VAR+=v`, `VAR:=v`, `VAR::=v`, `VAR?=v`, `VAR!=v` (make's forms on its command line). */
const MAKE_ASSIGN = /^([^=:+?!\s$]+)\s*(?::{1,3}|\+|\?|!)?=/;

function forwardedItem(w: OptWord, i: number, f: ProgramFamily, judge: boolean): Item {
  const name = w.t.split('=')[0] ?? w.t;
  const why = Object.hasOwn(FORWARDED_CODE, name) ? FORWARDED_CODE[name] : undefined;
  if (why && (!judge || f.forwardedCode)) return { at: i, end: i + 1, kind: 'code', name, why: `passes ${name} (${why}) to the script it runs` };
  const value = w.t.includes('=') ? w.t.slice(w.t.indexOf('=') + 1) : w.t;
  if (!w.known || outsideProject(value)) return { at: i, end: i + 1, kind: 'other', name: w.t };
  return { at: i, end: i + 1, kind: 'forwarded', name: w.t };
}

/**
 * getopt_long (make), optparse (pip), argparse (tox), commons-cli (mvn) and nopt (npm) take a
 * unique start of a long option for the option: `--dir=/tmp/x` is make's `--directory`. A long
 * option the table does not know that starts one of the code options is judged as that option.
 */
function abbreviated(f: ProgramFamily, opt: string): string {
  if (!opt.startsWith('--') || opt.length < 4 || known(f, opt)) return opt;
  return Object.keys(f.code).find((k) => k.startsWith(opt)) ?? opt;
}

function optionItem(f: ProgramFamily, opt: string, value: string | undefined, at: number, end: number): Item {
  const rule = Object.hasOwn(f.code, opt) ? f.code[opt] : undefined;
  if (rule && (!rule.when || value === undefined || rule.when(value))) return { at, end, kind: 'code', name: opt, why: rule.why };
  if (rule || f.inert.includes(opt) || f.inertValued.includes(opt)) return { at, end, kind: 'inert', name: opt };
  return { at, end, kind: 'other', name: opt };
}

const takesValue = (f: ProgramFamily, opt: string): boolean =>
  (Object.hasOwn(f.code, opt) && f.code[opt]?.value === true) || f.inertValued.includes(opt) || (f.otherValued?.includes(opt) ?? false);

const known = (f: ProgramFamily, opt: string): boolean => Object.hasOwn(f.code, opt) || f.inert.includes(opt) || takesValue(f, opt) || Object.hasOwn(f.optional ?? {}, opt);

/**
 * The value of option `opt` at word `i`: glued (`rest`, after `=` or the letter) or the next word.
 * A value the judge cannot read is undefined: a conditional option is then taken at its worst.
 */
function valueOf(f: ProgramFamily, opt: string, args: readonly OptWord[], i: number, rest: string | undefined): { value: string | undefined; end: number } {
  const w = args[i] as OptWord;
  if (rest !== undefined) return { value: w.known ? rest : undefined, end: i + 1 };
  const pattern = f.optional?.[opt];
  const next = args[i + 1];
  if (pattern) return next?.known && pattern.test(next.t) ? { value: next.t, end: i + 2 } : { value: '', end: i + 1 };
  if (!takesValue(f, opt) || !next) return { value: undefined, end: i + 1 };
  return { value: next.known ? next.t : undefined, end: i + 2 };
}

/**
 * Does a word the judge cannot read in full still show which option it is? `--script-shell=$X`
 * and `-j$(nproc)` do (what is computed is the value); `$OPTS`, `--$X` and `-q$X` (more letters,
 * any of them an option) do not.
 */
function visibleName(f: ProgramFamily, t: string): boolean {
  const dyn = t.search(/[$`]/);
  const head = dyn < 0 ? t : t.slice(0, dyn);
  if (!head.startsWith('-')) return false;
  const eq = head.indexOf('=');
  if (eq > 1) return true;
  if (head.startsWith('--') || head.length < 2) return false;
  const last = '-' + head[head.length - 1];
  return takesValue(f, last) || Object.hasOwn(f.optional ?? {}, last);
}

/**
 * Reads a program's arguments against its family's table: each option (with its value), `VAR=`
 * argument and positional word, in order. `judge`: read for the judge (forwarded words count
 * as code only where the family says its scripts are test runners) rather than for a grant.
 */
export function readOptions(f: ProgramFamily, args: readonly OptWord[], judge = true): Item[] {
  const out: Item[] = [];
  let forwarding = false;
  let positionalOnly = false;
  for (let i = 0; i < args.length; i++) {
    const w = args[i] as OptWord;
    const t = w.t;
    if (forwarding) {
      out.push(forwardedItem(w, i, f, judge));
      continue;
    }
    if (!w.known && !positionalOnly && /^[-$`+]/.test(t) && !visibleName(f, t)) {
      // `npm test $OPTS`: a word chosen at run time could be any option above.
      out.push({ at: i, end: i + 1, kind: 'unknown', name: t });
      continue;
    }
    if (t === '--' && !positionalOnly) {
      out.push({ at: i, end: i + 1, kind: f.forwards ? 'forwarded' : 'inert', name: t });
      if (f.forwards) forwarding = true;
      else positionalOnly = true;
      continue;
    }
    if (i === 0 && f.lead) {
      const why = f.lead(t);
      if (why) {
        out.push({ at: i, end: i + 1, kind: 'code', name: t, why });
        continue;
      }
    }
    if (positionalOnly || t.length < 2 || t[0] !== '-') {
      const assign = f.argVars ? MAKE_ASSIGN.exec(t) : null;
      if (assign) {
        const name = assign[1] as string;
        const why = Object.hasOwn(f.argVars as object, name) ? (f.argVars as Record<string, string>)[name] : undefined;
        out.push(why ? { at: i, end: i + 1, kind: 'code', name, why } : { at: i, end: i + 1, kind: 'other', name: t });
        continue;
      }
      const why = f.positional?.(t);
      out.push({ at: i, end: i + 1, kind: why ? 'code' : !f.positionalInert || !w.known || outsideProject(t) ? 'other' : 'positional', name: t, ...(why ? { why } : {}) });
      if (f.untilPositional) forwarding = true;
      continue;
    }
    // A long option, or (go, mvn) a whole single-dash one: `--opt=v`, `--opt v`, `-exec v`, `-gs file`.
    const eq = t.indexOf('=');
    const head = eq > 0 ? t.slice(0, eq) : t;
    let long: string | null = null;
    if (t.startsWith('--')) long = f.singleDashLong && known(f, head.slice(1)) ? head.slice(1) : abbreviated(f, head);
    else if (f.singleDashLong && head.length > 2) {
      if (known(f, head)) long = head;
      // Go and maven do not bundle letters: an unknown word is one unknown option, unless it is a
      // letter with its value glued on (`-Dkey=v`, `-T4`).
      else if (!takesValue(f, head.slice(0, 2))) {
        out.push({ at: i, end: i + 1, kind: 'other', name: head });
        continue;
      }
    }
    if (long !== null) {
      const { value, end } = valueOf(f, long, args, i, eq > 0 ? t.slice(eq + 1) : undefined);
      out.push(optionItem(f, long, value, i, end));
      i = end - 1;
      if (f.endsOptions?.includes(long)) forwarding = true;
      continue;
    }
    // Short options, bundled and glued: `-qx`, `-pno:cacheprovider`, `-j4`, `-Dkey=v`, `-C dir`.
    for (let j = 1; j < t.length; j++) {
      const opt = '-' + t[j];
      // `-w=../x`: some parsers (nopt) take what follows `=` as the value.
      const rest = t.slice(t[j + 1] === '=' ? j + 2 : j + 1);
      const pattern = f.optional?.[opt];
      if (pattern && (!rest || pattern.test(rest) || !w.known)) {
        const { end } = valueOf(f, opt, args, i, rest || undefined);
        out.push({ at: i, end, kind: 'inert', name: opt });
        i = end - 1;
        break;
      }
      if (takesValue(f, opt)) {
        const { value, end } = valueOf(f, opt, args, i, rest || undefined);
        out.push(optionItem(f, opt, value, i, end));
        i = end - 1;
        if (f.endsOptions?.includes(opt)) forwarding = true;
        break;
      }
      out.push(optionItem(f, opt, undefined, i, i + 1));
    }
  }
  return out;
}

/** The family of a program as the judge names it (`npm`, `python3`, `gmake`), if it has one. */
export function familyOf(program: string): ProgramFamily | undefined {
  const name = /^(python[23]?|pypy3?)(\.?\d+)*$/.test(program) ? program.replace(/[\d.]+$/, '') || program : program;
  return Object.hasOwn(CODE_OPTION_FAMILIES, name) ? CODE_OPTION_FAMILIES[name] : undefined;
}

/** The judge's reasons: each option, argument or word of `args` that names code, a config or a folder. */
export function codeOptionReasons(program: string, args: readonly OptWord[]): string[] {
  const f = familyOf(program);
  if (!f) return [];
  const out: string[] = [];
  const items = readOptions(f, args);
  for (const it of items) {
    if (it.kind === 'code') out.push(`${f.label} ${it.name} ${it.why ?? 'names code'}`);
    else if (it.kind === 'unknown') out.push(`${f.label}: an argument built at run time could be an option that runs code`);
  }
  if (f.configWrite) {
    const pos = items.filter((it) => (it.kind === 'positional' || it.kind === 'other') && it.end === it.at + 1 && !it.name.startsWith('-')).map((it) => args[it.at]?.t ?? '');
    const why = f.configWrite(pos, args);
    if (why) out.push(`${f.label} ${why}`);
  }
  return out;
}

export type ExtraCheck = { ok: true } | { ok: false; reason: string };

/**
 * Does a command-prefix grant of the first `granted` words cover the whole command `words`
 * (literal words: the grant checked it is one plain command)? Only when every word after the
 * prefix is an inert option, a test name or path inside the project, or a word passed on to the
 * script that names no module, config or folder. Programs without a family keep plain prefix
 * matching (git's own handling is elsewhere).
 */
export function extraWordsInert(words: readonly string[], granted: number): ExtraCheck {
  const program = (words[0] ?? '').slice((words[0] ?? '').lastIndexOf('/') + 1);
  let f = familyOf(program);
  if (!f || words.length <= granted) return { ok: true };
  let start = 1;
  // `python3 -m pytest …`: the module's options, not python's.
  if (f === python) {
    for (let i = 1; i < words.length; i++) {
      const w = words[i] as string;
      const glued = /^-[A-Za-z]*m(.+)$/.exec(w);
      const mod = glued ? glued[1] : /^-[A-Za-z]*m$/.test(w) ? words[i + 1] : undefined;
      if (mod !== undefined) {
        const inner = familyOf(mod);
        if (inner) {
          f = inner;
          start = glued ? i + 1 : i + 2;
        }
        break;
      }
      if (!w.startsWith('-') || /^-[A-Za-z]*c/.test(w)) break;
      if (/^-[WXQ]$/.test(w)) i++;
    }
    // The words up to the module are python's own: past them, a grant must reach the module.
    if (f !== python && granted < start) return { ok: false, reason: 'the grant ends before the module python runs' };
  }
  const items = readOptions(f, words.slice(start).map((t) => ({ t, known: true })), false);
  for (const it of items) {
    if (it.end + start <= granted) continue;
    if (it.kind === 'inert' || it.kind === 'positional' || it.kind === 'forwarded') continue;
    const what = it.kind === 'code' ? `${it.name} ${it.why ?? 'names code'}` : `${it.name} is not known to be inert`;
    return { ok: false, reason: `${f.label} ${what}; a prefix grant covers only the command as granted and inert options` };
  }
  return { ok: true };
}
