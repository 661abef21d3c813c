// Code options of python, pytest, pip and tox.
import { always, outsideProject, type ProgramFamily, setsCodeKey } from './rules.js';

/** `-W action:message:category:…`: a dotted category is imported to find the class. */
const importsWarningCategory = (v: string): boolean => (v.split(':')[2] ?? '').includes('.');

const PYTHON_ENV = {
  PYTHONBREAKPOINT: 'names the callable breakpoint() runs (os.system is one)',
  PYTHONWARNINGS: 'a warning filter whose category is imported',
  PYTHONUSERBASE: 'names the user site folder (its .pth files run)',
  PYTHONPLATLIBDIR: 'changes where the standard library is loaded from',
  PYTHONEXECUTABLE: 'names the program sys.executable says python is',
};

export const python: ProgramFamily = {
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

export const pytest: ProgramFamily = {
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

export const pip: ProgramFamily = {
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

export const tox: ProgramFamily = {
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
