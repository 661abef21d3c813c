// Persistence locations: files and folders whose contents run later, on their own, outside any
// tool call Gatehouse judges (a new shell, a login, the next `git status`, a timer, an editor or
// Python start). Writing one is a way to run code unsupervised, so the built-in rules deny every
// change to them at every autonomy level, and the shell tool's sandbox never binds one writable.
// One list for both: a glob added here is denied by the judge and locked read-only in the sandbox.
// Security-sensitive: removing a glob lets an agent plant code that outlives its session.

/**
 * Shell start-up files (builtin.shell-startup): run by every new shell or login. Besides bash's
 * and zsh's own, the files they source: Debian's and Ubuntu's ~/.bashrc runs ~/.bash_aliases, and
 * bash-completion runs ~/.bash_completion and the user's completion scripts (its XDG folder) in
 * every interactive shell.
 */
export const SHELL_STARTUP_GLOBS: readonly string[] = [
  '~/.bashrc', '~/.bash_profile', '~/.bash_login', '~/.bash_logout', '~/.profile', '~/.zshrc', '~/.zshenv', '~/.zprofile', '~/.zlogin', '~/.zlogout',
  '~/.bash_aliases', '~/.bash_completion', '~/.bash_completion.d/**', '~/.local/share/bash-completion/**',
  '~/.config/fish/**', '~/.inputrc',
];

/**
 * Git hooks and configuration (builtin.git-hooks): hooks run on commit, checkout and push;
 * core.fsmonitor, core.hooksPath, core.pager and `!` aliases in a config file run commands at the
 * next `git status` in any shell, like a hook does. Git also takes config and hooks from other
 * files of a repository's folder: `commondir` names the folder its config and hooks are read from
 * (`echo x > .git/commondir` plus `.git/x/config` plants a core.fsmonitor without touching
 * .git/config), `config.worktree` is read as config, and the git folders of submodules
 * (`.git/modules/NAME`, nested) and linked worktrees (`.git/worktrees/NAME`) have their own.
 */
export const GIT_PERSISTENCE_GLOBS: readonly string[] = [
  '**/.git/hooks/**', '**/.git/config', '**/.git/config.worktree', '**/.git/commondir',
  '**/.git/modules/**/hooks/**', '**/.git/modules/**/config', '**/.git/modules/**/config.worktree', '**/.git/modules/**/commondir',
  '**/.git/worktrees/*/commondir', '**/.git/worktrees/*/config.worktree',
  '~/.gitconfig', '~/.config/git/config', '/etc/gitconfig',
];

/**
 * A `.git` itself (builtin.git-pointer), for the judge only. A `.git` file (`gitdir: ../x`) or link
 * makes any folder a repository's git folder, config and hooks included, and a folder copied or
 * moved into place brings its own: an agent that writes `lib/.git` at the path of a submodule not
 * checked out, and `x/config` with a core.fsmonitor (an ordinary file anywhere else), runs that
 * command at the next `git status` of the repository, outside every call judged. Not in
 * ALL_PERSISTENCE_GLOBS: the shell box must leave `.git` folders writable (Git writes in them), and
 * deals itself with a `.git` a contained command makes (main/runner/box.ts).
 */
export const GIT_POINTER_GLOBS: readonly string[] = ['**/.git'];
/** The judge's rule over GIT_POINTER_GLOBS, which the box leaves out (main/runner/box.ts). */
export const GIT_POINTER_RULE = 'builtin.git-pointer';

/** The other places that run code later (builtin.persistence). */
export const PERSISTENCE_GLOBS: readonly string[] = [
  // Desktop sessions and service managers: run at login or on a timer.
  '~/.config/autostart/**', '~/.config/systemd/**', '~/.local/share/systemd/**', '~/.config/environment.d/**', '~/.config/upstart/**',
  '~/.config/plasma-workspace/env/**', '~/.config/plasma-workspace/shutdown/**', '~/.config/lxsession/**', '~/.config/openbox/autostart*',
  '~/.pam_environment', '~/.xprofile', '~/.xinitrc', '~/.xsession*', '~/.Xclients', '~/Library/LaunchAgents/**',
  // Folders on PATH before the system's (Debian's ~/.profile adds ~/bin and ~/.local/bin when they
  // exist): a file named `ls` or `git` there replaces the real one in every later shell.
  '~/.local/bin/**', '~/bin/**',
  // Editors and terminal multiplexers read these at start and can run commands from them.
  '~/.vimrc', '~/.gvimrc', '~/.exrc', '~/.vim/**', '~/.config/nvim/**', '~/.emacs', '~/.emacs.el', '~/.emacs.d/**', '~/.config/emacs/**',
  '~/.nanorc', '~/.config/nano/**', '~/.tmux.conf', '~/.config/tmux/**', '~/.screenrc',
  // Python runs these at every interpreter or IPython start.
  '~/.ipython/**/startup/**', '~/.ipython/profile_*/ipython_config.py', '~/.ipython/profile_*/ipython_kernel_config.py', '~/.pythonrc*', '~/.pythonstartup*',
  '~/.local/lib/python*/site-packages/usercustomize.py', '~/.local/lib/python*/site-packages/sitecustomize.py', '~/.local/lib/python*/site-packages/*.pth',
  // cron: the spool (crontab's files) and the system tables.
  '/var/spool/cron/**', '/etc/cron*', '/etc/cron*/**', '/etc/anacrontab',
];

/** Every persistence location, for the shell tool's sandbox (main/runner/sandbox-plan.ts). */
export const ALL_PERSISTENCE_GLOBS: readonly string[] = [...SHELL_STARTUP_GLOBS, ...GIT_PERSISTENCE_GLOBS, ...PERSISTENCE_GLOBS];
