// Code options of JavaScript test runners, linters and bundlers run directly (jest, vitest, mocha,
// eslint, prettier, webpack, vite, rollup, babel, playwright, cypress, biome, swc), terraform,
// helm and kubectl.
import { always, type OptionRule, outsideProject, type ProgramFamily } from './rules.js';

/**
 * A module, config or folder outside the project (the project's own config and plugins from its
 * node_modules are the project's code). A value that is itself an option (`-u --require`) is
 * taken at its worst: the table may have read a flag as taking a value.
 */
const outside = (why: string): OptionRule => ({ why, value: true, when: (v) => outsideProject(v) || v.startsWith('-') });

const MODULE = 'names a module (code) outside the project to load';
const CONFIG = 'names a config (code) outside the project to load';
const FOLDER = 'names a folder outside the project to work from (its config and modules load)';

const JS_CODE: Record<string, OptionRule> = {
  ...Object.fromEntries(['--config', '-c', '--config-file', '--configPlugin', '--config-path', '-C', '--project', '-P', '--workspace', '--preset', '--presets'].map((o) => [o, outside(CONFIG)])),
  ...Object.fromEntries(['--rootDir', '--roots', '--root', '-r', '--dir', '--cwd', '--resolve-plugins-relative-to', '--rulesdir'].map((o) => [o, outside(FOLDER)])),
  ...Object.fromEntries([
    '--require', '--import', '--loader', '--setupFiles', '--setupFilesAfterEnv', '--globalSetup', '--globalTeardown', '--testEnvironment',
    '--env', '--environment', '--reporter', '--reporters', '-R', '--transform', '--resolver', '--runner', '--testRunner', '--testSequencer',
    '--snapshotResolver', '--watchPlugins', '--plugin', '--plugins', '-p', '--file', '--ui', '-u', '--format', '-f', '--parser', '--globals',
  ].map((o) => [o, outside(MODULE)])),
  '--node-option': always('passes options to node (--require, --import run code)'),
  '-n': always('passes options to node (--require, --import run code)'),
};

const jsTool = (label: string): ProgramFamily => ({
  label,
  code: JS_CODE,
  inert: [
    '--watch', '--coverage', '--ci', '--run', '--fix', '--write', '--check', '--verbose', '--silent', '--bail', '--passWithNoTests',
    '--runInBand', '-i', '--no-cache', '--color', '--no-color', '--quiet', '--json', '--headed', '--list', '--cache', '--onlyChanged',
    '--detectOpenHandles', '--forceExit', '--updateSnapshot', '--recursive', '--exit', '--parallel', '--production', '--minify', '--sourcemap',
  ],
  inertValued: ['--testNamePattern', '-t', '--maxWorkers', '--timeout', '--testTimeout', '--grep', '-g', '--ext', '--max-warnings', '--shard', '--workers', '--mode', '--port', '--out-dir', '--outDir', '-o'],
  env: {},
  forwards: false, positionalInert: true,
});

export const JS_TOOLS: Record<string, ProgramFamily> = Object.fromEntries(
  ['jest', 'vitest', 'mocha', 'eslint', 'prettier', 'webpack', 'vite', 'rollup', 'babel', 'playwright', 'cypress', 'biome', 'swc'].map((n) => [n, jsTool(n)]),
);

const TF_ENV = {
  TF_CLI_CONFIG_FILE: 'names the CLI config (provider_installation can name provider programs)',
  TERRAFORM_CONFIG: 'names the CLI config (provider_installation can name provider programs)',
  'TF_CLI_ARGS*': 'adds options to every terraform command (-chdir, -plugin-dir, …)',
  TF_PLUGIN_CACHE_DIR: 'names a folder provider programs are taken from',
  TF_DATA_DIR: 'names the folder terraform keeps its providers (programs) and modules in',
};

/** terraform and tofu: providers are programs, and a configuration's external data sources run commands. */
export const terraform: ProgramFamily = {
  label: 'terraform',
  code: {
    '-chdir': { why: 'names a configuration outside the project (its providers and external data sources run programs)', value: true, when: (v) => !/^\.\.\/?$/.test(v) && outsideProject(v) },
    '-plugin-dir': always('names a folder provider programs are taken from'),
  },
  inert: ['-auto-approve', '-no-color', '-upgrade', '-reconfigure', '-migrate-state', '-json', '-destroy', '-refresh-only', '-compact-warnings', '-detailed-exitcode', '-recursive', '-check', '-diff', '-help', '-version'],
  inertValued: ['-input', '-lock', '-lock-timeout', '-var', '-var-file', '-out', '-target', '-refresh', '-parallelism', '-replace', '-write', '-list'],
  otherValued: ['-backend-config', '-state', '-state-out', '-backup'],
  env: TF_ENV,
  forwards: false, positionalInert: true, singleDashLong: true,
};

const KUBECONFIG = { why: 'names a kubeconfig outside the project (a user\'s exec entry is a program it runs)', value: true, when: outsideProject };

export const helm: ProgramFamily = {
  label: 'helm',
  code: {
    '--post-renderer': always('names a program helm runs on the rendered manifests'),
    '--kubeconfig': KUBECONFIG,
  },
  // `helm plugin install URL`: the plugin's install hook runs, and later helm commands run the plugin.
  configWrite: (pos) => (pos[0] === 'plugin' && (pos[1] === 'install' || pos[1] === 'update') ? 'plugin install runs the plugin\'s hooks (commands) and keeps it for later helm commands' : null),
  inert: ['--wait', '--atomic', '--dry-run', '--debug', '--install', '-i', '--create-namespace', '--force', '--all-namespaces', '-A', '--devel', '--skip-crds'],
  inertValued: ['-n', '--namespace', '-f', '--values', '--set', '--set-string', '--set-file', '--version', '--kube-context', '--timeout', '-o', '--output', '--repo'],
  env: {
    HELM_PLUGINS: 'names the folder helm runs plugins from',
    HELM_DATA_HOME: 'names helm\'s data folder (its plugins run)',
  },
  forwards: false, positionalInert: true,
};

export const kubectl: ProgramFamily = {
  label: 'kubectl',
  code: { '--kubeconfig': KUBECONFIG },
  inert: ['-A', '--all-namespaces', '-w', '--watch', '--show-labels', '-i', '--stdin', '-t', '--tty', '--all', '--force'],
  inertValued: ['-n', '--namespace', '-o', '--output', '-l', '--selector', '--context', '-c', '--container', '-f', '--filename', '--field-selector', '--tail', '--since'],
  env: { KUBECONFIG: 'names the kubeconfig (a user\'s exec entry is a program kubectl, helm and other clients run)' },
  forwards: false, positionalInert: true,
};
