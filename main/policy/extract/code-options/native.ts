// Code options of C and C++ compilers (gcc, clang and their names), cmake, ctest, ninja, rustc, java and javac.
import { always, type OptionRule, outsideProject, type ProgramFamily } from './rules.js';

/** A folder outside the project, but not `..` itself (`cmake ..` from a build folder is the project). */
const outsideFolder = (v: string): boolean => !/^\.\.\/?$/.test(v) && outsideProject(v);

/** Words passed on to the linker, assembler, preprocessor or clang's front end that load code. */
const LOADS = /plugin|(^|,)-?-load|^@|,@|specs|^--?config/;

const passes = (to: string): OptionRule => ({ why: `passes an option to ${to} that loads a plugin (native code) or reads more options from a file`, value: true, when: (v) => LOADS.test(v) });

/** The compiler driver's own options, and the ones it passes on (`-Wl,-plugin,x.so`, `@file`), that name code. */
function ccSwitch(word: string): string | null {
  if (word.startsWith('@')) return 'names a response file (more options, read from it)';
  if (/^-W[lpa],/.test(word) && LOADS.test(word.slice(4))) return 'passes an option to the linker, assembler or preprocessor that loads a plugin (native code) or reads more options from a file';
  return null;
}

export const cc: ProgramFamily = {
  label: 'the compiler',
  code: {
    '-fplugin': always('names a compiler plugin (native code) to load'),
    '-fpass-plugin': always('names a compiler plugin (native code) to load'),
    '-iplugindir': always('names the folder compiler plugins are loaded from'),
    '-B': always('names a folder the driver takes its programs (cc1, as, ld) from'),
    '-wrapper': always('names a program that runs every program of the driver'),
    '-specs': always('names a specs file (it can name the programs the driver runs)'),
    '--ld-path': always('names the linker program'),
    '-fuse-ld': { why: 'names the linker program', value: true, when: (v) => v.includes('/') },
    '--gcc-toolchain': always('names the GCC installation (its linker and tools) clang uses'),
    '--gcc-install-dir': always('names the GCC installation (its linker and tools) clang uses'),
    '--config': always('names a clang config file (more options, read from it)'),
    '--config-system-dir': always('names the folder clang reads config files from'),
    '--config-user-dir': always('names the folder clang reads config files from'),
    '-Xlinker': passes('the linker'),
    '-Xassembler': passes('the assembler'),
    '-Xpreprocessor': passes('the preprocessor'),
    '-Xclang': passes('the clang front end'),
    '-mllvm': passes('LLVM'),
  },
  switchWord: ccSwitch,
  inert: [
    '-c', '-S', '-E', '-g', '-g3', '-O', '-O0', '-O1', '-O2', '-O3', '-Os', '-Og', '-Oz', '-Ofast', '-Wall', '-Wextra', '-Werror', '-pedantic',
    '-w', '-v', '-shared', '-static', '-fPIC', '-fpic', '-pthread', '-MD', '-MMD', '-M', '-MM', '-MP', '-s', '-pipe', '--version', '-ansi',
  ],
  inertValued: ['-o', '-x', '-I', '-L', '-l', '-D', '-U', '-std', '-isystem', '-iquote', '-idirafter', '-MF', '-MT', '-MQ', '-march', '-mtune', '-include', '-imacros'],
  env: {
    GCC_EXEC_PREFIX: 'names where the compiler driver takes its programs (cc1, as, ld) from',
    COMPILER_PATH: 'names folders the compiler driver takes its programs (cc1, as, ld) from',
    CCC_OVERRIDE_OPTIONS: 'edits the options of every clang command',
  },
  forwards: false, positionalInert: true, singleDashLong: true,
};

/** `-D` cache entries that do not name code: the build type, the install folders, language standards. */
const CMAKE_INERT_VARS = /^CMAKE_(BUILD_TYPE|INSTALL_[A-Z_]+|EXPORT_COMPILE_COMMANDS|C_STANDARD|CXX_STANDARD|CXX_STANDARD_REQUIRED|CXX_EXTENSIONS|VERBOSE_MAKEFILE|POSITION_INDEPENDENT_CODE|COLOR_DIAGNOSTICS|UNITY_BUILD|INTERPROCEDURAL_OPTIMIZATION|OSX_DEPLOYMENT_TARGET|OSX_ARCHITECTURES|CONFIGURATION_TYPES|MESSAGE_LOG_LEVEL|RULE_MESSAGES|SKIP_RPATH|FIND_DEBUG_MODE|COMPILE_WARNING_AS_ERROR)$/;

/**
 * A cache entry (`KEY[:TYPE]=VALUE`) that names code: CMake's own (compilers, launchers, toolchain
 * files, files included into the project, module and package paths) unless known inert, and any
 * entry whose value is a path outside the project (`-DFoo_DIR=/tmp/x` loads /tmp/x's config script).
 */
function cmakeDefine(v: string): boolean {
  const eq = v.indexOf('=');
  const key = (eq < 0 ? v : v.slice(0, eq)).replace(/:.*$/, '');
  const value = eq < 0 ? '' : v.slice(eq + 1);
  if (CMAKE_INERT_VARS.test(key)) return false;
  return key.startsWith('CMAKE_') || value.split(';').some(outsideProject);
}

const CMAKE_DEFINE = 'sets a cache entry that names code (a compiler or launcher, a toolchain file, a script included into the project, a folder of package scripts)';

export const cmake: ProgramFamily = {
  label: 'cmake',
  code: {
    '-D': { why: CMAKE_DEFINE, value: true, when: cmakeDefine },
    '-C': { why: 'names an initial-cache script (CMake code) outside the project', value: true, when: outsideProject },
    '-P': { why: 'names a CMake script outside the project', value: true, when: outsideProject },
    '--toolchain': always('names a toolchain file (CMake code naming the compilers)'),
    '-S': { why: 'names a source folder outside the project (its CMakeLists.txt runs)', value: true, when: outsideFolder },
    '-B': { why: 'names a build folder outside the project (its cache names the compilers and scripts)', value: true, when: outsideFolder },
    '--build': { why: 'names a build folder outside the project (its build files run)', value: true, when: outsideFolder },
    '--install': { why: 'names a build folder outside the project (its install scripts run)', value: true, when: outsideFolder },
    // `cmake -E env|time|chdir … CMD`: a command the judge does not read.
    '-E': { why: 'runs a command the judge does not read (-E env, time, chdir)', value: true, when: (v) => /^(env|time|chdir)$/.test(v) },
  },
  endsOptions: ['-E'],
  // `cmake /tmp/x`: the source (or build) folder, as -S (or -B) names it.
  positional: (w) => (outsideFolder(w) ? 'names a source or build folder outside the project (its CMakeLists.txt or build files run)' : null),
  inert: ['--fresh', '-N', '-L', '-LA', '-LH', '-LAH', '--version', '--help', '--verbose', '-v', '--clean-first', '--strip', '--log-context', '--warn-uninitialized', '--debug-find'],
  optional: { '-j': /^\d+$/, '--parallel': /^\d+$/ },
  inertValued: ['-G', '-T', '-A', '-U', '-t', '--target', '--config', '--preset', '--log-level', '--component', '--prefix'],
  otherValued: ['--graphviz', '--trace-redirect', '--profiling-output', '--workflow'],
  env: {
    CMAKE_TOOLCHAIN_FILE: 'names a toolchain file (CMake code naming the compilers)',
    CMAKE_C_COMPILER_LAUNCHER: 'names a program that runs every C compiler command',
    CMAKE_CXX_COMPILER_LAUNCHER: 'names a program that runs every C++ compiler command',
    CMAKE_CUDA_COMPILER_LAUNCHER: 'names a program that runs every CUDA compiler command',
    CMAKE_C_LINKER_LAUNCHER: 'names a program that runs every link command',
    CMAKE_CXX_LINKER_LAUNCHER: 'names a program that runs every link command',
    CMAKE_PREFIX_PATH: 'names folders find_package loads package scripts (CMake code) from',
  },
  forwards: false, positionalInert: true,
};

export const ctest: ProgramFamily = {
  label: 'ctest',
  code: {
    '-S': always('names a dashboard script (CMake code) ctest runs'),
    '--build-and-test': always('builds a project and runs the command --test-command names'),
    '--test-command': always('names a command ctest runs'),
    '--overwrite': always('overrides a test setting (MemoryCheckCommand names a program)'),
    '--test-dir': { why: 'names a build folder outside the project (its tests run)', value: true, when: outsideFolder },
    '--resource-spec-file': { why: 'names a file outside the project', value: true, when: outsideProject },
  },
  inert: ['-V', '--verbose', '-VV', '--extra-verbose', '--output-on-failure', '-N', '--show-only', '-Q', '--quiet', '--rerun-failed', '--stop-on-failure', '--progress', '--no-tests=error'],
  inertValued: ['-C', '--build-config', '-R', '--tests-regex', '-E', '--exclude-regex', '-L', '--label-regex', '-LE', '--timeout', '--repeat', '-I'],
  optional: { '-j': /^\d+$/, '--parallel': /^\d+$/ },
  forwards: false, positionalInert: false,
};

export const ninja: ProgramFamily = {
  label: 'ninja',
  code: {
    '-f': { why: 'names a build file outside the project (its rules are commands)', value: true, when: outsideProject },
    '-C': { why: 'names a folder outside the project to build in (its build.ninja runs)', value: true, when: outsideFolder },
    // `ninja -t msvc -- CMD` runs CMD.
    '-t': { why: 'runs a command the judge does not read (-t msvc)', value: true, when: (v) => v === 'msvc' },
  },
  inert: ['-v', '--verbose', '--quiet', '-n', '--version'],
  inertValued: ['-j', '-k', '-l', '-d', '-w'],
  forwards: false, positionalInert: true,
};

/** `-C key=value` codegen settings that name a program or a library rustc loads. */
const RUSTC_CODEGEN = /^(linker|link-arg|link-args|linker-flavor|llvm-args|passes|codegen-backend|ar|profile-use|remark)=?/;

export const rustc: ProgramFamily = {
  label: 'rustc',
  code: {
    '-C': { why: 'names a linker, linker options or a codegen backend (programs and libraries rustc runs)', value: true, when: (v) => RUSTC_CODEGEN.test(v) },
    '--codegen': { why: 'names a linker, linker options or a codegen backend (programs and libraries rustc runs)', value: true, when: (v) => RUSTC_CODEGEN.test(v) },
    '-Z': always('turns on unstable options (codegen backends, crate attributes)'),
    '--extern': { why: 'names a crate outside the project (a proc macro is native code rustc loads)', value: true, when: (v) => outsideProject(v.slice(v.indexOf('=') + 1)) },
    '-L': { why: 'names a folder outside the project crates (proc macros, native code) are loaded from', value: true, when: (v) => outsideProject(v.slice(v.indexOf('=') + 1)) },
  },
  switchWord: (w) => (w.startsWith('@') ? 'names a response file (more options, read from it)' : null),
  inert: ['-O', '-g', '--test', '-v', '--verbose', '--version', '-V'],
  inertValued: ['-o', '--out-dir', '--crate-type', '--crate-name', '--edition', '--emit', '--target', '--cfg', '-l', '--cap-lints', '-A', '-W', '-D', '-F', '--error-format', '--color'],
  forwards: false, positionalInert: true,
};

/** A class path with an entry outside the project (`-cp /tmp/x.jar`): classes, agents and processors from there run. */
const classPathOutside = (v: string): boolean => v.split(/[:;]/).some(outsideProject);

/** JVM options that load or run code, in their glued spellings (`-javaagent:x.jar`, `-XX:OnError=cmd`). */
function jvmSwitch(word: string): string | null {
  if (word.startsWith('@')) return 'names an argument file (more options, read from it)';
  if (/^-(javaagent|agentpath|agentlib):/.test(word)) return 'names an agent (code) the JVM loads first';
  if (/^-XX:(OnError|OnOutOfMemoryError|Flags|VMOptionsFile)=/.test(word)) return 'names a command the JVM runs, or a file of more options';
  if (/^-J/.test(word)) return 'passes an option to the JVM (-javaagent runs code)';
  if (/^-Xplugin:/.test(word)) return 'names a compiler plugin (code) javac loads';
  return null;
}

const CLASS_PATH = { why: 'names a class path with an entry outside the project (the code that runs, or that javac loads)', value: true, when: classPathOutside };

export const java: ProgramFamily = {
  label: 'java',
  code: {
    '-cp': CLASS_PATH, '-classpath': CLASS_PATH, '--class-path': CLASS_PATH,
    '-p': CLASS_PATH, '--module-path': CLASS_PATH, '--upgrade-module-path': CLASS_PATH,
    '-jar': { why: 'names a jar outside the project (its code runs)', value: true, when: outsideProject },
    '-processorpath': CLASS_PATH, '--processor-path': CLASS_PATH, '--processor-module-path': CLASS_PATH,
  },
  switchWord: jvmSwitch,
  inert: ['-ea', '-da', '-server', '-version', '--version', '-verbose', '-g', '-nowarn', '-Werror', '-deprecation', '-parameters'],
  inertValued: ['-d', '-s', '-h', '--release', '-source', '-target', '-encoding', '-processor', '--add-modules', '-m', '--module'],
  env: {
    JAVA_TOOL_OPTIONS: 'passes options to every JVM (-javaagent runs code)',
    JDK_JAVA_OPTIONS: 'passes options to every JVM (-javaagent runs code)',
    CLASSPATH: 'names where the JVM and javac load classes (code) from',
  },
  endsOptions: ['-jar', '-m', '--module'],
  forwards: false, positionalInert: true, singleDashLong: true, untilPositional: true,
};

/** javac reads the words after a source file as more options and files. */
export const javac: ProgramFamily = { ...java, label: 'javac', untilPositional: false, endsOptions: [] };
