// Code options of php, deno, composer, rake, bundle, gem, mix, elixir and sbt.
import { always, type OptionRule, outsideProject, type ProgramFamily, readsFile } from './rules.js';

const outside = (why: string): OptionRule => ({ why, value: true, when: outsideProject });

/** `-d KEY=VALUE` ini settings that change nothing about what runs (auto_prepend_file, extension, include_path do). */
const PHP_INERT_INI = /^(memory_limit|display_errors|display_startup_errors|error_reporting|max_execution_time|date\.timezone|html_errors|log_errors|short_open_tag|xdebug\.mode|xdebug\.start_with_request|opcache\.enable|opcache\.enable_cli|zend\.assertions|assert\.active|precision|serialize_precision|default_charset|output_buffering|implicit_flush|phar\.readonly|register_argc_argv|variables_order|post_max_size|upload_max_filesize|pcov\.enabled)(=|$)/;

export const php: ProgramFamily = {
  label: 'php',
  code: {
    '-d': { why: 'sets an ini setting that loads code (auto_prepend_file, extension, include_path, sendmail_path)', value: true, when: (v) => !PHP_INERT_INI.test(v) },
    '--define': { why: 'sets an ini setting that loads code (auto_prepend_file, extension, include_path, sendmail_path)', value: true, when: (v) => !PHP_INERT_INI.test(v) },
    '-c': outside('names a php.ini outside the project (it can prepend files and load extensions)'),
    '--php-ini': outside('names a php.ini outside the project (it can prepend files and load extensions)'),
    '-z': always('names a Zend extension (native code) to load'),
    '--zend-extension': always('names a Zend extension (native code) to load'),
  },
  inert: ['-v', '-m', '-i', '-a', '-l', '-q', '-h', '-n', '-H', '-e', '-s', '-w', '--version'],
  inertValued: ['-S', '-t'],
  otherValued: ['-r', '-f', '-B', '-R', '-F', '-E'],
  endsOptions: ['-r', '-f'],
  env: {
    PHPRC: 'names the php.ini (it can prepend files and load extensions)',
    PHP_INI_SCAN_DIR: 'names folders of ini files (they can prepend files and load extensions)',
  },
  forwards: true, untilPositional: true, positionalInert: true,
};

/** A module or map outside the project, or fetched (`--import-map=https://…` redirects every import). */
const denoOutside = (why: string): OptionRule => ({ why, value: true, when: (v) => outsideProject(v) || /^[a-z][a-z0-9+.-]*:/i.test(v) });

export const deno: ProgramFamily = {
  label: 'deno',
  code: {
    '--import-map': denoOutside('names an import map (it redirects what every import loads)'),
    '--config': denoOutside('names a deno.json (its import map and tasks) outside the project'),
    '-c': denoOutside('names a deno.json (its import map and tasks) outside the project'),
    '--preload': denoOutside('names a module deno loads first'),
    '--require': denoOutside('names a module deno loads first'),
    '--env-file': readsFile('names an environment file to load (it can set DENO_* settings and NODE_OPTIONS)'),
    '--inspect': { why: 'opens a debugger anyone on the port can run code through', value: false },
    '--inspect-brk': { why: 'opens a debugger anyone on the port can run code through', value: false },
    '--inspect-wait': { why: 'opens a debugger anyone on the port can run code through', value: false },
  },
  inert: ['-A', '--allow-all', '-q', '--quiet', '--watch', '--check', '--no-check', '--reload', '-r', '--unstable', '--coverage', '--parallel', '--fail-fast'],
  inertValued: ['--filter', '--log-level'],
  otherValued: ['--cert', '--location', '--seed'],
  env: {},
  forwards: true, positionalInert: true,
};

export const composer: ProgramFamily = {
  label: 'composer',
  code: {
    '-d': outside('names the folder composer works from (its composer.json scripts and plugins run)'),
    '--working-dir': outside('names the folder composer works from (its composer.json scripts and plugins run)'),
  },
  inert: ['--no-dev', '--no-scripts', '--no-plugins', '--no-interaction', '-n', '--prefer-dist', '--prefer-source', '-o', '--optimize-autoloader', '-q', '--quiet', '-v', '-vv', '-vvv', '--no-progress', '--dev'],
  inertValued: [],
  env: {
    COMPOSER: 'names the composer.json (its scripts and plugins run)',
    COMPOSER_HOME: 'names composer\'s home (its global plugins run)',
    COMPOSER_VENDOR_DIR: 'names the vendor folder (plugins installed there run)',
  },
  forwards: true, positionalInert: true,
};

/** ruby: `-e` is read as inline code (interpreters.ts); a file it loads first from outside is not seen. */
export const ruby: ProgramFamily = {
  label: 'ruby',
  code: {
    '-r': outside('names a Ruby file outside the project to load first'), '--require': outside('names a Ruby file outside the project to load first'),
    '-I': outside('names a folder outside the project Ruby loads from'),
  },
  inert: ['-w', '-W', '-v', '--version', '-c', '-n', '-p', '-a', '-l', '-d', '--verbose', '--disable-gems', '--jit', '--yjit'],
  inertValued: ['-E', '--encoding'],
  otherValued: ['-e', '-C'],
  endsOptions: ['-e'],
  forwards: true, untilPositional: true, positionalInert: true,
};

const RUBY_CODE = 'is Ruby code rake runs';

export const rake: ProgramFamily = {
  label: 'rake',
  code: {
    '-e': always(RUBY_CODE), '--execute': always(RUBY_CODE), '-E': always(RUBY_CODE), '--execute-continue': always(RUBY_CODE),
    '-p': always(RUBY_CODE), '--execute-print': always(RUBY_CODE),
    '-f': outside('names a Rakefile outside the project'), '--rakefile': outside('names a Rakefile outside the project'),
    '-r': outside('names a Ruby file outside the project to load'), '--require': outside('names a Ruby file outside the project to load'),
    '-I': outside('names a folder outside the project Ruby loads from'), '--libdir': outside('names a folder outside the project Ruby loads from'),
    '-R': outside('names a folder of rake files outside the project'), '--rakelibdir': outside('names a folder of rake files outside the project'),
    '-C': outside('names a folder outside the project to work from (its Rakefile runs)'), '--directory': outside('names a folder outside the project to work from (its Rakefile runs)'),
  },
  inert: ['-t', '--trace', '-T', '--tasks', '-n', '--dry-run', '-q', '--quiet', '-s', '--silent', '-v', '--verbose', '-m', '--multitask', '-P', '--prereqs', '-W', '--where'],
  inertValued: ['-j', '--jobs'],
  env: {},
  forwards: false, positionalInert: true,
};

export const bundle: ProgramFamily = {
  label: 'bundle',
  code: {
    '--gemfile': outside('names a Gemfile (Ruby code) outside the project'),
  },
  inert: ['--quiet', '--verbose', '--no-color', '--retry', '--local', '--frozen', '--deployment'],
  inertValued: ['--jobs', '-j'],
  env: {
    BUNDLE_GEMFILE: 'names the Gemfile (Ruby code bundler runs)',
    BUNDLE_APP_CONFIG: 'names the folder bundler reads its settings from (the Gemfile, the gem path)',
    BUNDLE_PATH: 'names the folder gems are loaded from',
    BUNDLE_BIN: 'names the folder gem programs are run from',
    BUNDLE_USER_HOME: 'names bundler\'s home (its plugins run)',
    BUNDLE_USER_PLUGIN: 'names the folder bundler plugins run from',
  },
  // `bundle exec CMD`: CMD's own options, not bundle's.
  forwards: true, positionalInert: true, untilPositional: true,
};

export const gem: ProgramFamily = {
  label: 'gem',
  code: {},
  // `gem build /tmp/x.gemspec`, `gem install /tmp/x.gem`: Ruby code (a gemspec, an extension's build script) from outside.
  positional: (w) => (outsideProject(w) ? 'names a gemspec or gem outside the project (its Ruby code runs)' : null),
  inert: ['--no-document', '-N', '--user-install', '--conservative', '-q', '--quiet', '-V', '--verbose', '--force', '--strict'],
  inertValued: ['-v', '--version'],
  otherValued: ['--source', '-s'],
  env: {
    GEM_HOME: 'names the folder Ruby loads gems (code) from',
    GEM_PATH: 'names folders Ruby loads gems (code) from',
  },
  forwards: false, positionalInert: true,
};

const ELIXIR_CODE = 'is Elixir code it runs';

export const mix: ProgramFamily = {
  label: 'mix',
  code: {
    '-e': always(ELIXIR_CODE), '--eval': always(ELIXIR_CODE),
    '-r': outside('names an Elixir file outside the project to load'), '--require': outside('names an Elixir file outside the project to load'),
  },
  inert: ['--no-compile', '--no-deps-check', '--no-halt', '--no-start', '--cover', '--stale', '--failed', '--trace', '--force'],
  inertValued: ['--only', '--exclude', '--include', '--seed', '--max-failures'],
  env: {
    MIX_EXS: 'names the mix.exs (Elixir code mix runs)',
    MIX_HOME: 'names mix\'s home (its archives are code every mix command loads)',
    MIX_ARCHIVES: 'names the folder of archives (code) every mix command loads',
    ERL_FLAGS: 'passes options to the Erlang VM (-eval, -s, -pa run or load code)',
    ERL_AFLAGS: 'passes options to the Erlang VM (-eval, -s, -pa run or load code)',
    ERL_ZFLAGS: 'passes options to the Erlang VM (-eval, -s, -pa run or load code)',
    ELIXIR_ERL_OPTIONS: 'passes options to the Erlang VM (-eval, -s, -pa run or load code)',
  },
  forwards: false, positionalInert: true,
};

export const elixir: ProgramFamily = {
  ...mix,
  label: 'elixir',
  code: { ...mix.code, '--erl': always('passes options to the Erlang VM (-eval, -s run code)'), '--eval-string': always(ELIXIR_CODE) },
  untilPositional: true,
};

const JVM = 'passes an option to the JVM (-javaagent runs code)';

/** sbt: `-J…` and `-D…` go to the JVM; `eval` and `set` take Scala code on the command line. */
export const sbt: ProgramFamily = {
  label: 'sbt',
  code: {
    '-J': always(JVM),
    '-D': { why: 'sets a system property (sbt.global.base, sbt.boot.directory name code)', value: true, when: (v) => !/^(sbt\.log\.noformat|sbt\.color|sbt\.supershell|sbt\.server\.forcestart|file\.encoding)(=|$)/.test(v) },
    '-sbt-jar': always('names the sbt launcher (code)'), '--sbt-jar': always('names the sbt launcher (code)'),
    '-sbt-dir': always('names sbt\'s global folder (its plugins run)'), '--sbt-dir': always('names sbt\'s global folder (its plugins run)'),
    '-sbt-boot': always('names the folder sbt boots from'), '--sbt-boot': always('names the folder sbt boots from'),
    '-java-home': always('names the JVM that runs'), '--java-home': always('names the JVM that runs'),
    '-jvm-debug': always('opens a debugger anyone on the port can run code through'), '--jvm-debug': always('opens a debugger anyone on the port can run code through'),
  },
  positional: (w) => (/^;?\s*(eval|set|console|consoleQuick|consoleProject)(\s|$)/.test(w) ? 'is a command that takes Scala code (eval, set, console)' : null),
  inert: ['-batch', '--batch', '-no-colors', '--no-colors', '-client', '--client', '-v', '--verbose', '-d', '--debug'],
  inertValued: ['-mem', '--mem'],
  env: {
    SBT_OPTS: 'passes options to the sbt JVM (-javaagent runs code)',
    JAVA_OPTS: 'passes options to the build JVM (-javaagent runs code)',
  },
  forwards: false, positionalInert: true, singleDashLong: true,
};
