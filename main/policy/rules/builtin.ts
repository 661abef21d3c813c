// The built-in rules: locked, always loaded before user rules, and never replaceable by them.
// Security-sensitive: removing a glob or an action here opens that path to every agent, whatever
// the operator's policy says; user rules cannot put it back as a locked rule.
import { OPERATIONS, type Operation, type Rule, type RuleDecision, type Severity } from '../types.js';
import { BLOCKED_CIDRS, BLOCKED_HOST_NAMES } from '../network.js';
import { compileRule, type CompiledRule, type SpecialMatch } from './compile.js';
import type { PathContext } from './paths.js';
import { GIT_PERSISTENCE_GLOBS, GIT_POINTER_GLOBS, GIT_POINTER_RULE, PERSISTENCE_GLOBS, SHELL_STARTUP_GLOBS } from './persistence.js';

export interface BuiltinContext extends PathContext {
  /** GATEHOUSE_HOME: tokens, policy, audit database, trust. No agent may read or write it. */
  gatehouseHome: string;
  /**
   * Every plugin folder the host loads plugins from (the home's, the project's, each
   * `--plugins-dir`). Code written there runs as a plugin; no agent may write it.
   */
  pluginDirs?: readonly string[];
  /**
   * This installation's own command line: its `gatehouse` entry file and the folder of its built
   * bundles (core/install-files.ts). An agent that starts them acts with the operator's rights.
   */
  cliFiles?: readonly string[];
  /**
   * Everything this installation runs (core/install-files.ts installedCodeFiles): its bin file,
   * out/, package.json, example plugins, the node_modules folders its bundles load packages from
   * and the folders Node looks in last. Default: cliFiles.
   */
  installFiles?: readonly string[];
}

/** Names of built-in rules start with this; user rules may not. */
export const BUILTIN_PREFIX = 'builtin.';

const FILE_OPS: Operation[] = ['read', 'write', 'delete', 'copy', 'move'];
const MODIFY_OPS: Operation[] = ['write', 'delete', 'copy', 'move'];

interface Def {
  name: string;
  description: string;
  actions: Operation[];
  block_paths?: string[];
  block_except?: string[];
  block_hosts?: string[];
  severity?: Severity;
  decision?: RuleDecision;
  message: string;
  special?: SpecialMatch;
}

// Escaped: homes and plugin folders are literal paths, not globs.
const literalGlob = (p: string): string => (p.replace(/\/+$/, '') || '/').replace(/[*?[\](){}!+@|\\]/g, '\\$&');

/**
 * Browser profiles hold cookies, saved passwords, session tokens and history (the console URL an
 * operator opened among them). Linux (native, snap, flatpak) and macOS, per browser family.
 */
const BROWSER_PROFILES = [
  '~/.config/google-chrome*/**', '~/.config/chromium/**', '~/.config/BraveSoftware/**', '~/.config/microsoft-edge*/**',
  '~/.config/vivaldi*/**', '~/.config/opera*/**', '~/.mozilla/**', '~/.librewolf/**', '~/.waterfox/**',
  '~/snap/chromium/**', '~/snap/firefox/**', '~/snap/brave/**', '~/snap/opera/**', '~/snap/vivaldi/**',
  '~/.var/app/com.google.Chrome/**', '~/.var/app/org.chromium.Chromium/**', '~/.var/app/com.brave.Browser/**',
  '~/.var/app/com.microsoft.Edge/**', '~/.var/app/org.mozilla.firefox/**', '~/.var/app/com.vivaldi.Vivaldi/**', '~/.var/app/com.opera.Opera/**',
  '~/Library/Application Support/Google/Chrome*/**', '~/Library/Application Support/Chromium/**',
  '~/Library/Application Support/BraveSoftware/**', '~/Library/Application Support/Microsoft Edge*/**',
  '~/Library/Application Support/Vivaldi/**', '~/Library/Application Support/com.operasoftware.Opera*/**',
  '~/Library/Application Support/Firefox/**', '~/Library/Safari/**', '~/Library/Cookies/**',
  '~/Library/Containers/com.apple.Safari/**',
];

/**
 * What /proc shows of a process that another process may use: its command line and environment
 * (tokens passed there), its memory and mappings, its open files and its root and working folder
 * (a way into its files). `*` is any pid: the extractor resolves /proc/self to the host's own pid.
 */
const PROC_ENTRIES = '{cmdline,environ,mem,maps,smaps,fd,root,cwd,map_files,task}';

function defs(ctx: BuiltinContext): Def[] {
  const gh = literalGlob(ctx.gatehouseHome);
  const pluginDirs = (ctx.pluginDirs ?? []).filter((d) => d.startsWith('/')).map(literalGlob);
  const cliFiles = (ctx.cliFiles ?? []).filter((d) => d.startsWith('/')).map(literalGlob);
  const installFiles = ctx.installFiles ? ctx.installFiles.filter((d) => d.startsWith('/')).map(literalGlob) : cliFiles;
  return [
    // First: when `rm -rf /` also reaches credentials, this is the rule the operator should read.
    {
      name: 'builtin.delete-root-or-home',
      description: 'Deleting or moving / or the home directory (and what contains them)',
      actions: ['delete', 'move'],
      block_paths: ['/', '~'],
      severity: 'critical',
      message: 'Agents may not delete or move / or the home directory.',
    },
    {
      name: 'builtin.credentials.ssh',
      description: 'SSH keys and configuration',
      actions: FILE_OPS,
      block_paths: ['~/.ssh/**'],
      message: 'Agents may not touch SSH keys or SSH configuration.',
    },
    {
      name: 'builtin.credentials.gnupg',
      description: 'GnuPG keys',
      actions: FILE_OPS,
      block_paths: ['~/.gnupg/**'],
      message: 'Agents may not touch GnuPG keys.',
    },
    {
      name: 'builtin.credentials.cloud',
      description: 'Cloud and container credentials',
      actions: FILE_OPS,
      block_paths: ['~/.aws/**', '~/.config/gcloud/**', '~/.azure/**', '~/.kube/config', '~/.docker/config.json'],
      message: 'Agents may not touch cloud or container credentials.',
    },
    {
      name: 'builtin.credentials.env-files',
      description: '.env files (secrets for local development)',
      actions: FILE_OPS,
      block_paths: ['**/.env', '**/.env.*'],
      // Templates committed to repositories hold no secrets; agents routinely read them.
      block_except: ['**/.env.example', '**/.env.sample', '**/.env.template'],
      message: 'Agents may not touch .env files; they hold secrets.',
    },
    {
      name: 'builtin.credentials.stores',
      description: 'Keyrings, password stores and credential files',
      actions: FILE_OPS,
      block_paths: ['~/.local/share/keyrings/**', '~/.password-store/**', '~/Library/Keychains/**', '~/.netrc', '~/.git-credentials', '~/.pgpass'],
      message: 'Agents may not touch keyrings, password stores or credential files.',
    },
    {
      name: 'builtin.credentials.tokens',
      description: 'API tokens of developer tools and coding agents',
      actions: FILE_OPS,
      // Each holds a bearer token that works from anywhere: the GitHub CLI, package registries,
      // Vault, Terraform Cloud, rclone remotes, and the agents' own sign-ins.
      block_paths: [
        '~/.config/gh/hosts.yml', '~/.npmrc', '~/.pypirc', '~/.cargo/credentials', '~/.cargo/credentials.toml', '~/.gem/credentials',
        '~/.vault-token', '~/.terraform.d/credentials.tfrc.json', '~/.config/rclone/rclone.conf', '~/.s3cfg', '~/.boto',
        '~/.claude/.credentials.json', '~/.codex/auth.json', '~/.config/github-copilot/**',
      ],
      message: 'Agents may not touch API tokens of developer tools or coding agents.',
    },
    {
      name: 'builtin.browser-profiles',
      description: 'Web browser profiles: cookies, saved passwords, session tokens, history',
      actions: FILE_OPS,
      block_paths: BROWSER_PROFILES,
      message: 'Agents may not touch browser profiles; they hold cookies, passwords and session tokens.',
    },
    {
      name: 'builtin.system.write',
      description: 'Writes and deletes in system directories',
      actions: MODIFY_OPS,
      block_paths: ['/etc/**', '/boot/**', '/sys/**', '/proc/**'],
      message: 'Agents may not change /etc, /boot, /sys or /proc.',
    },
    {
      name: 'builtin.system.secrets',
      description: 'Password hashes and sudo configuration',
      actions: FILE_OPS,
      block_paths: ['/etc/shadow*', '/etc/gshadow*', '/etc/sudoers*', '/etc/sudoers.d/**', '/etc/security/opasswd'],
      message: 'Agents may not touch password hashes or sudo configuration.',
    },
    {
      name: 'builtin.proc-secrets',
      description: "Processes' command lines, environments, memory and open files under /proc",
      actions: FILE_OPS,
      block_paths: [`/proc/*/${PROC_ENTRIES}`, `/proc/*/${PROC_ENTRIES}/**`, '/proc/self/**', '/proc/thread-self/**'],
      message: "Agents may not read other processes' command lines, environments, memory or open files.",
    },
    {
      name: 'builtin.shell-startup',
      description: 'Shell start-up files (run on every new shell)',
      actions: MODIFY_OPS,
      block_paths: [...SHELL_STARTUP_GLOBS],
      message: 'Agents may not change shell start-up files.',
    },
    {
      name: 'builtin.git-hooks',
      description: 'Git hooks and Git configuration (hooks run on every commit, checkout, push; configuration names commands Git runs)',
      actions: MODIFY_OPS,
      block_paths: [...GIT_PERSISTENCE_GLOBS],
      message: 'Agents may not change Git hooks or Git configuration files.',
    },
    {
      name: 'builtin.git-hooks-path',
      description: "The folder a repository's Git configuration runs hooks from instead of .git/hooks (core.hooksPath: husky's .husky, a .githooks folder)",
      actions: MODIFY_OPS,
      // Read from the repository's (and the user's) Git config at each call: git-hooks-path.ts.
      block_paths: [],
      special: 'hooks-path',
      message: "Agents may not change the hooks Git runs for this repository (its core.hooksPath folder); they run at the operator's next commit, checkout or push.",
    },
    {
      name: GIT_POINTER_RULE,
      description: 'A `.git` file, link or folder put in place (it names the folder Git takes configuration and hooks from)',
      // Not delete: removing a `.git` plants nothing (and the shell box keeps what Git needs).
      actions: ['write', 'copy', 'move'],
      block_paths: [...GIT_POINTER_GLOBS],
      message: 'Agents may not write, copy or move a `.git` file or folder into place: Git takes configuration and hooks (commands it runs) from the folder it names. Use git init, git clone or git submodule for repositories.',
    },
    {
      name: 'builtin.persistence',
      description: 'Places that run code later: autostart, systemd user units, ~/.local/bin, editor and Python start-up files, cron',
      actions: MODIFY_OPS,
      // What is written here runs at the next login, timer, shell, editor or Python start: outside
      // every call Gatehouse judges (main/policy/rules/persistence.ts).
      block_paths: [...PERSISTENCE_GLOBS],
      message: 'Agents may not change files that run code later (autostart, services, ~/.local/bin, editor or Python start-up files, cron).',
    },
    {
      name: 'builtin.plugin-folders',
      description: 'Plugin folders: the home one, every project .gatehouse/plugins, every --plugins-dir',
      actions: MODIFY_OPS,
      // Any depth: a project opened later has its own; the host's own folders by their paths too.
      block_paths: ['**/.gatehouse/plugins', '**/.gatehouse/plugins/**', ...pluginDirs.flatMap((d) => [d, `${d}/**`])],
      message: 'Agents may not write into plugin folders; code there runs as a plugin.',
    },
    {
      name: 'builtin.agent-supervision',
      description: "Agents' settings files, where the Gatehouse hook and MCP server are configured (Claude Code, Gemini CLI, Codex, opencode, Copilot CLI, Qwen Code)",
      actions: MODIFY_OPS,
      // An agent that edits these can drop its pre-tool hook (Claude Code's PreToolUse, Gemini
      // CLI's BeforeTool, or `hooksConfig.enabled = false` in any file Gemini CLI merges; Copilot
      // CLI's preToolUse in ~/.copilot/hooks, or `disableAllHooks: true` in a repository's
      // .github/copilot/settings.json, which switches the user's hooks off too) or point
      // Gatehouse's MCP entry elsewhere: its next session runs unsupervised. opencode loads
      // Gatehouse's plugin from its config folders (a broken or replaced plugin file fails open) and
      // reads MCP servers from every opencode.json(c) from the project up, so all of them are covered.
      // Claude Code also takes hooks from the frontmatter of subagents and skills, and runs the
      // `!` lines of a skill or slash command when it is invoked: code no call Gatehouse judges runs.
      block_paths: [
        '~/.claude.json', '~/.claude/settings.json', '~/.claude/settings.local.json', '**/.claude/settings.json', '**/.claude/settings.local.json',
        '~/.claude/agents', '~/.claude/agents/**', '~/.claude/skills', '~/.claude/skills/**', '~/.claude/commands', '~/.claude/commands/**',
        '**/.claude/agents', '**/.claude/agents/**', '**/.claude/skills', '**/.claude/skills/**', '**/.claude/commands', '**/.claude/commands/**',
        '~/.gemini/settings.json', '**/.gemini/settings.json', '/etc/gemini-cli/**',
        '~/.codex/config.toml',
        '~/.config/opencode', '~/.config/opencode/**', '**/.opencode', '**/.opencode/**', '**/opencode.json', '**/opencode.jsonc',
        '~/.copilot/hooks', '~/.copilot/hooks/**', '~/.copilot/settings.json', '~/.copilot/config.json', '~/.copilot/mcp-config.json',
        '**/.github/hooks', '**/.github/hooks/**', '**/.github/copilot/settings.json', '**/.github/copilot/settings.local.json', '/etc/github-copilot/**',
        // Qwen Code: its PreToolUse hook and `disableAllHooks` in the user's, a project's or the system settings.
        '~/.qwen/settings.json', '**/.qwen/settings.json', '/etc/qwen-code/**',
      ],
      message: "Agents may not change an agent's settings (Claude Code, Gemini CLI, Codex, opencode, Copilot CLI, Qwen Code); they configure the hook and the MCP server that supervise it.",
    },
    {
      name: 'builtin.gatehouse-home',
      description: "Gatehouse's own home: tokens, policy, audit database, trust",
      actions: [...FILE_OPS, 'execute'],
      block_paths: [gh, `${gh}/**`],
      severity: 'critical',
      message: "Agents may not read or change Gatehouse's own files.",
    },
    {
      name: 'builtin.gatehouse-cli',
      description: "Gatehouse's own command line, by its name or through this installation's files",
      actions: ['execute'],
      // The CLI finds the default data folder and the operator token by itself, so no protected
      // path is on its command line: `gatehouse url` hands out an operator session, `gatehouse
      // approvals approve` approves the agent's own call. Matched against the programs a call
      // starts (special 'self-cli'), so reading or grepping these files stays allowed.
      block_paths: cliFiles.flatMap((f) => [f, `${f}/**`]),
      severity: 'critical',
      special: 'self-cli',
      message: "Agents may not run Gatehouse's own command line; it holds operator rights.",
    },
    // Only when the installation is known: a rule with no paths would match every change.
    ...(installFiles.length === 0
      ? []
      : [
          {
            name: 'builtin.gatehouse-install',
            description: "This installation's entry file, built bundles and the packages they load: what Claude Code's hook, the MCP bridge and the host run",
            actions: MODIFY_OPS,
            // `gatehouse hook` runs out/main/hook.js before every tool call: an agent that rewrites it
            // (or bin/gatehouse.js, or a package it loads) decides its own next calls, or runs its
            // code in the host. Reading them stays allowed.
            block_paths: installFiles.flatMap((f) => [f, `${f}/**`]),
            severity: 'critical' as const,
            message: "Agents may not change Gatehouse's installed files; the hook that supervises them runs from there.",
          },
        ]),
    {
      name: 'builtin.network.private',
      description: 'Private, loopback, link-local, cloud-metadata and unspecified addresses, after DNS resolution',
      actions: ['network'],
      block_hosts: [...BLOCKED_CIDRS, ...BLOCKED_HOST_NAMES],
      special: 'ssrf',
      message: 'Agents may not reach private, loopback, link-local or cloud-metadata addresses.',
    },
    {
      name: 'builtin.evasive-command',
      description: 'Commands static analysis cannot see through (eval, computed commands, decoded payloads)',
      actions: [...OPERATIONS],
      decision: 'ask',
      severity: 'warning',
      special: 'evasive',
      message: 'Gatehouse cannot tell what this command does; an operator must look at it.',
    },
  ];
}

/** The built-in rules as plain rules (for display and snapshots). */
export function builtinRules(ctx: BuiltinContext): Rule[] {
  return defs(ctx).map((d) => toRule(d));
}

/** The built-in rules, compiled. */
export function compileBuiltinRules(ctx: BuiltinContext): CompiledRule[] {
  return defs(ctx).map((d) => compileRule(toRule(d), ctx, d.special ?? null));
}

function toRule(d: Def): Rule {
  return {
    name: d.name,
    description: d.description,
    source: 'builtin',
    origin: 'builtin',
    actions: d.actions,
    block_paths: d.block_paths ?? [],
    block_except: d.block_except ?? [],
    block_hosts: d.block_hosts ?? [],
    severity: d.severity ?? 'critical',
    priority: 0,
    message: d.message,
    decision: d.decision ?? 'deny',
    locked: true,
    enabled: true,
  };
}
