// The judge's own limits. An agent chooses the size and shape of what Gatehouse analyses, so every
// part of the analysis has a bound; input over a bound is not analysed (or only in part) and is
// reported as something Gatehouse cannot see through, which a rule turns into ask (or deny), never
// into allow. Each size is far above what an agent's real commands need and far below what makes
// the analysis slow.

/**
 * Longest shell command that is parsed at all, in UTF-16 code units. Real commands, heredocs that
 * write a source file included, stay well under 64 KiB. Parsing is linear but not cheap: a 64 KiB
 * pipeline of one-letter stages, the worst shape measured, takes tree-sitter ≈ 220 ms (in the
 * worker, see IN_PROCESS_MAX_LENGTH), and a 2 MB one made it abort after 10 s.
 */
export const MAX_COMMAND_LENGTH = 64 * 1024;

/**
 * Most stages in one pipeline. Hand-written pipelines have a handful; the analyser looks back over
 * the stages before a shell (`… | base64 -d | sh`), which stays cheap only while pipelines are short.
 */
export const MAX_PIPELINE_STAGES = 256;

/** Most simple commands in one script, nested ones included (a generated script of 4,096 lines is no agent's hand-typed command). */
export const MAX_COMMANDS = 4096;

/**
 * Deepest nesting of substitutions, subshells, groups and quoting the converter follows. The
 * converter recurses once per level; thousands of `$(` overflowed the JavaScript stack.
 */
export const MAX_NESTING = 64;

/** Most words in one simple command (`git add` of a few hundred files is normal; 4,096 is not). */
export const MAX_WORDS_PER_COMMAND = 4096;

/**
 * Largest here-document body. A body fed to a shell is parsed again as a script, and every body is
 * content the checkers scan; 32 KiB holds any file an agent writes through `cat <<EOF`.
 */
export const MAX_HEREDOC_LENGTH = 32 * 1024;

/**
 * Calls whose command and string arguments add up to at most this many characters are judged on
 * the calling thread. Agents' commands are almost all far smaller (and judged in microseconds,
 * repeats from the parse cache); the worst 4 KiB shape measured, a 2,000-stage pipeline, costs
 * ≈ 15 ms of parsing, far under the deadline, and a worker round trip would only slow the common
 * case. Larger calls are judged in a worker thread with a deadline.
 */
export const IN_PROCESS_MAX_LENGTH = 4 * 1024;

/**
 * Most distinct paths one call reports. Each path is matched against every rule on the host's own
 * thread (≈ 70 µs a path with the built-in rules measured), so 512 paths cost ≈ 35 ms there; a
 * command naming more (`git add` of 500 files is rare) is evasive and judged on its first 512.
 */
export const MAX_PATHS = 512;

/**
 * Most distinct hosts one call reports. Policy resolves each name in DNS for the private-address
 * check, so thousands of URLs in one command would mean thousands of lookups; real commands name
 * a handful. More is evasive, judged on the first 64.
 */
export const MAX_HOSTS = 64;

/**
 * How long extraction may run on the host's own thread, parsing included. It cannot be pre-empted
 * there, so the analysis checks the clock as it reports each finding (tree-sitter through its
 * progress callback) and gives up past this; the call is then judged again in the worker. Calls
 * small enough to be judged there normally take microseconds, but the grammar's error recovery is
 * far slower on some garbage (4,000 `)` take over half a second): this bound, plus a few ms of the
 * checks' granularity, is what one agent's command can cost every other call waiting on the host's
 * thread, under the judge's 50 ms with room for the worker's start.
 */
export const IN_PROCESS_DEADLINE_MS = 20;

/** How long a worker may take to extract one call before the call is denied and the worker replaced. */
export const DEFAULT_EXTRACT_DEADLINE_MS = 2000;

/**
 * How long tree-sitter may parse one command on the host's thread when no extraction deadline is
 * set (a call judged under one gets what is left of IN_PROCESS_DEADLINE_MS instead).
 */
export const IN_PROCESS_PARSE_BUDGET_MS = 250;

/**
 * Most entries listed to find the symbolic links a link-following walk (`grep -R`, `rg -L`,
 * `find -L`) would take out of its folder. A source tree without dependencies is a few thousand
 * entries; a folder over the bound leaves the call unsure (ask) rather than unlisted.
 */
export const MAX_LINK_WALK_ENTRIES = 20_000;
