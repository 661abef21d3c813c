// Code options of make, cargo, go, gradle and mvn.
import { always, outsideProject, type ProgramFamily } from './rules.js';

export const make: ProgramFamily = {
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

export const cargo: ProgramFamily = {
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

export const go: ProgramFamily = {
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

const JVM_ENV = {
  JAVA_TOOL_OPTIONS: 'passes options to every JVM (-javaagent runs code)',
  JDK_JAVA_OPTIONS: 'passes options to every JVM (-javaagent runs code)',
  _JAVA_OPTIONS: 'passes options to every JVM (-javaagent runs code)',
  JAVA_OPTS: 'passes options to the build JVM (-javaagent runs code)',
};

export const gradle: ProgramFamily = {
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

export const mvn: ProgramFamily = {
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

/**
 * MSBuild properties that only pick a configuration, a version or warnings. Any other property can
 * run code: PreBuildEvent and PostBuildEvent are shell commands, and the …Path, …Targets and
 * …Props properties import MSBuild files (whose Exec tasks run commands).
 */
const DOTNET_INERT_PROPS = new Set([
  'Configuration', 'Platform', 'Version', 'VersionPrefix', 'VersionSuffix', 'PackageVersion', 'AssemblyVersion', 'FileVersion',
  'InformationalVersion', 'TargetFramework', 'TargetFrameworks', 'RuntimeIdentifier', 'TreatWarningsAsErrors', 'WarningLevel', 'NoWarn',
  'WarningsAsErrors', 'Nullable', 'LangVersion', 'DebugType', 'DebugSymbols', 'Optimize', 'ContinuousIntegrationBuild', 'Deterministic',
  'GenerateDocumentationFile', 'SelfContained', 'PublishSingleFile', 'PublishTrimmed', 'PublishReadyToRun', 'InvariantGlobalization',
  'UseAppHost', 'CollectCoverage', 'CoverletOutputFormat', 'EnableNETAnalyzers', 'RunAnalyzers', 'AnalysisLevel', 'IsPackable',
  'GeneratePackageOnBuild', 'IncludeSymbols', 'SymbolPackageFormat',
]);

/** `K=V;K2=V2` (or `,`): every property is inert. A key spelled any case is the same property. */
function inertProps(list: string): boolean {
  const inert = [...DOTNET_INERT_PROPS].map((k) => k.toLowerCase());
  return list.split(/[;,]/).every((pair) => {
    const eq = pair.indexOf('=');
    return eq > 0 && inert.includes(pair.slice(0, eq).trim().replace(/^"/, '').toLowerCase());
  });
}

const MSBUILD_PROPERTY = 'sets an MSBuild property (PreBuildEvent and PostBuildEvent are commands; …Path, …Targets and …Props import build files)';

/** MSBuild's own switches, in any of its spellings (`-p:`, `--property:`, `/p:`), as dotnet passes them on. */
function msbuildSwitch(word: string): string | null {
  if (word.startsWith('@')) return 'names a response file (more switches, read from it)';
  const m = /^(?:--?|\/)([A-Za-z]+):(.*)$/s.exec(word);
  if (!m) return null;
  const name = (m[1] as string).toLowerCase();
  const value = m[2] as string;
  if (['p', 'property', 'rp', 'restoreproperty'].includes(name)) return inertProps(value) ? null : MSBUILD_PROPERTY;
  if (['l', 'logger', 'dl', 'distributedlogger'].includes(name) && /[\\/]|\.dll/i.test(value)) return 'names a logger assembly (code) MSBuild loads';
  return null;
}

/** MSBuild switches written with a slash (`/m`, `/t:Build`): not a path. */
const MSBUILD_SLASH = /^\/(m|maxcpucount|v|verbosity|t|target|restore|r|nologo|bl|binarylogger|tl|nr|nodereuse|clp|consoleloggerparameters|warnaserror|noconsolelogger|noautorsp|noautoresponse|graph|interactive|detailedsummary|ds|ignoreprojectextensions|m\d*)(:.*)?$/i;

export const dotnet: ProgramFamily = {
  label: 'dotnet',
  code: {
    '-p': { why: `${MSBUILD_PROPERTY}, or names a project outside this one`, value: true, when: (v) => (v.includes('=') ? !inertProps(v.replace(/^(?:roperty)?:/, '')) : outsideProject(v)) },
    '--property': { why: MSBUILD_PROPERTY, value: true, when: (v) => !inertProps(v.replace(/^:/, '')) },
    '--project': { why: 'names a project outside this one (its build runs code)', value: true, when: outsideProject },
    '-s': { why: 'names a settings file outside the project (test adapters it names are loaded)', value: true, when: outsideProject },
    '--settings': { why: 'names a settings file outside the project (test adapters it names are loaded)', value: true, when: outsideProject },
    '-a': { why: 'names a folder of test adapters (code) outside the project', value: true, when: outsideProject },
    '--test-adapter-path': { why: 'names a folder of test adapters (code) outside the project', value: true, when: outsideProject },
    '-l': { why: 'names a logger assembly (code) to load', value: true, when: (v) => /[\\/]|\.dll/i.test(v) },
    '--logger': { why: 'names a logger assembly (code) to load', value: true, when: (v) => /[\\/]|\.dll/i.test(v) },
    '-e': always('sets the environment of the program it runs (DOTNET_STARTUP_HOOKS loads code)'),
    '--environment': always('sets the environment of the program it runs (DOTNET_STARTUP_HOOKS loads code)'),
    '--runtimeconfig': always('names the runtime config (its startup hooks and probing paths load code)'),
    '--additionalprobingpath': always('names a folder assemblies are loaded from'),
    '--additional-deps': always('names more dependencies (assemblies) to load'),
  },
  switchWord: msbuildSwitch,
  positional: (w) => (MSBUILD_SLASH.test(w) || !outsideProject(w) ? null : 'names a project, solution or assembly outside this one (what runs is its code)'),
  inert: [
    '--no-restore', '--no-build', '--nologo', '--no-dependencies', '--force', '--interactive', '--blame', '--list-tests', '-t',
    '--sc', '--self-contained', '--no-self-contained', '--no-launch-profile', '--no-incremental', '-q', '--help', '-h', '--version', '--info',
  ],
  inertValued: ['-c', '--configuration', '-f', '--framework', '-r', '--runtime', '-v', '--verbosity', '--arch', '--os', '--filter', '--collect', '--launch-profile', '--blame-hang-timeout'],
  otherValued: ['-o', '--output', '--source', '--configfile', '--diag', '-d', '--results-directory', '--artifacts-path', '--version-suffix'],
  env: {
    DOTNET_STARTUP_HOOKS: 'names assemblies every .NET program loads and runs first',
    DOTNET_ADDITIONAL_DEPS: 'names more dependencies (assemblies) every .NET program loads',
    DOTNET_SHARED_STORE: 'names a folder .NET programs load assemblies from',
    'CORECLR_PROFILER*': 'names a profiler (native code) the .NET runtime loads',
    CORECLR_ENABLE_PROFILING: 'makes the .NET runtime load a profiler (native code)',
    'COR_PROFILER*': 'names a profiler (native code) the .NET runtime loads',
    'DOTNET_ROOT*': 'names the .NET runtime that runs',
    DOTNET_HOST_PATH: 'names the dotnet program MSBuild tasks run',
    MSBUILD_EXE_PATH: 'names the MSBuild that runs',
    MSBuildExtensionsPath: 'names the folder MSBuild imports build files from (an environment variable is a property)',
    MSBuildSDKsPath: 'names the folder MSBuild SDKs (build files) come from',
    CustomBeforeMicrosoftCommonTargets: 'names a build file MSBuild imports (an environment variable is a property)',
    CustomAfterMicrosoftCommonTargets: 'names a build file MSBuild imports (an environment variable is a property)',
    NUGET_PACKAGES: 'names the package folder (build files in packages run)',
  },
  forwards: true, positionalInert: false,
};
