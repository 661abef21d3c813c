// Code options of npm, pnpm, yarn, bun and node.
import { always, npmConfigWrite, type OptionRule, outsideProject, type ProgramFamily, readsFile } from './rules.js';

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

export const npm: ProgramFamily = {
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

export const pnpm: ProgramFamily = {
  ...npm,
  label: 'pnpm',
  code: PNPM_CODE,
  // `pnpm --config.script-shell=/tmp/x test`: pnpm sets any config from a `--config.` option.
  configPrefix: '--config.',
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

export const yarn: ProgramFamily = {
  ...npm,
  label: 'yarn',
  code: YARN_CODE,
  configWrite: npmConfigWrite(YARN_CODE),
  inert: [...NPM_INERT, '--frozen-lockfile', '--immutable', '--non-interactive', '--pure-lockfile'],
  env: { ...NPM_ENV, 'YARN_*': 'yarn reads every setting from YARN_* variables (the rc file, folders, plugins, …)' },
};

export const bun: ProgramFamily = {
  label: 'bun',
  code: {
    '--cwd': always('names the folder bun works from'),
    '--config': always('names a bunfig (it can preload modules)'),
    '-c': always('names a bunfig (it can preload modules)'),
    '--preload': always('names a module bun loads first'),
    '--require': always('names a module bun loads first'),
    '-r': always('names a module bun loads first'),
    '--import': always('names a module bun loads first'),
    '--env-file': readsFile('names an environment file to load (it can set NODE_OPTIONS, BUN_* settings)'),
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

const INSPECT = { why: 'opens a debugger anyone on the port can run code through', value: false };

export const node: ProgramFamily = {
  label: 'node',
  code: {
    '--require': always('names a module node loads first'),
    '-r': always('names a module node loads first'),
    '--import': always('names a module node loads first'),
    '--loader': always('names a module that loads every other one'),
    '--experimental-loader': always('names a module that loads every other one'),
    '--env-file': readsFile('names an environment file (it can set NODE_OPTIONS)'),
    '--env-file-if-exists': readsFile('names an environment file (it can set NODE_OPTIONS)'),
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
