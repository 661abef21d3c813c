// Folder watches that prove kept symlink answers with no system call (extract/folder-watch.ts), on
// the real kernel: an agent that changes the tree between two calls is judged on the change, also
// when it floods the kernel's event queue so that the change's own event is dropped.
import { mkdirSync, readFileSync, readdirSync, readlinkSync, renameSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setImmediate as turn } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { FolderWatch } from '../../../main/policy/extract/folder-watch.js';
import { GuardedExtractor } from '../../../main/policy/extract/guarded-extract.js';
import { initExtractor } from '../../../main/policy/extract/index.js';
import { walkSymlinks } from '../../../main/policy/extract/paths.js';
import { SymlinkCache } from '../../../main/policy/extract/symlink-cache.js';
import { BURST_LIMIT } from '../../../main/core/watch-events.js';
import { createHost } from '../../../main/host/create-host.js';
import { listenForConsolesAndAgents } from '../../../main/shells/serve/run-serve.js';
import { http } from '../../support/net.js';
import { tempDir } from '../../support/temp.js';

const available = FolderWatch.available();
if (!available) console.warn('folder-watch tests skipped: folders cannot be watched here (not Linux, or a small inotify queue)');

const open: FolderWatch[] = [];
afterEach(() => {
  for (const w of open.splice(0)) w.close();
});

/** A watch whose changes the test can wait for: `changed(folder)` resolves at the folder's first event. */
function watched() {
  const seen = new Set<string>();
  const waiting = new Map<string, () => void>();
  const watch = new FolderWatch({
    onChange: (folder) => {
      seen.add(folder);
      waiting.get(folder)?.();
    },
  });
  open.push(watch);
  const changed = (folder: string) => (seen.has(folder) ? Promise.resolve() : new Promise<void>((resolve) => waiting.set(folder, resolve)));
  return { watch, changed, seen };
}

function cacheWith(watch: FolderWatch) {
  let walks = 0;
  const cache = new SymlinkCache((p) => {
    walks++;
    return walkSymlinks(p);
  }, { watch });
  return { cache, walks: () => walks };
}

describe.runIf(available)('folder watches prove kept symlink answers', () => {
  it('a repeated path is answered with no walk and no stat while its folders are quiet; a symlink made where a missing name was is followed once its event came', async () => {
    const root = tempDir('gatehouse-folderwatch-');
    const work = join(root, 'work');
    const secret = join(root, 'secret');
    mkdirSync(work);
    mkdirSync(secret);
    const { watch, changed } = watched();
    const { cache, walks } = cacheWith(watch);
    const p = join(work, 'keys', 'id_rsa');
    // Just made, so its times are not settled: the stat alone would keep nothing; the watches do.
    expect(cache.resolve(p)).toBe(p);
    const walked = walks();
    expect(cache.resolve(p)).toBe(p);
    expect(cache.resolve(p)).toBe(p);
    expect(walks()).toBe(walked);
    expect(cache.provenByWatch).toBe(2);
    // The agent's move, then its next call, which reaches the host through the loop.
    symlinkSync(secret, join(work, 'keys'));
    await changed(work);
    expect(cache.resolve(p)).toBe(join(secret, 'id_rsa'));
    expect(cache.provenByWatch).toBe(2);
  });

  it('a folder above the kept answer moved away and replaced by a symlink is an event in the folder that held it', async () => {
    const root = tempDir('gatehouse-folderwatch-');
    mkdirSync(join(root, 'proj', 'src'), { recursive: true });
    mkdirSync(join(root, 'keys', 'src'), { recursive: true });
    writeFileSync(join(root, 'proj', 'src', 'a.ts'), 'x');
    writeFileSync(join(root, 'keys', 'src', 'a.ts'), 'key');
    const { watch, changed } = watched();
    const { cache } = cacheWith(watch);
    const p = join(root, 'proj', 'src', 'a.ts');
    expect(cache.resolve(p)).toBe(p);
    expect(cache.resolve(p)).toBe(p);
    expect(cache.provenByWatch).toBe(1);
    renameSync(join(root, 'proj'), join(root, 'old'));
    symlinkSync(join(root, 'keys'), join(root, 'proj'));
    await changed(root);
    expect(cache.resolve(p)).toBe(join(root, 'keys', 'src', 'a.ts'));
  });

  it('an answer through a symlink is not proven by watches (the link leads through folders they do not see); it is proven by its stat as before', () => {
    const root = tempDir('gatehouse-folderwatch-');
    mkdirSync(join(root, 'real'));
    writeFileSync(join(root, 'real', 'f.txt'), 'x');
    symlinkSync(join(root, 'real'), join(root, 'link'));
    const { watch } = watched();
    const { cache } = cacheWith(watch);
    for (let i = 0; i < 3; i++) expect(cache.resolve(join(root, 'link', 'f.txt'))).toBe(join(root, 'real', 'f.txt'));
    expect(cache.provenByWatch).toBe(0);
  });

  it('a folder removed and made again is watched anew: its new entries are seen', async () => {
    const root = tempDir('gatehouse-folderwatch-');
    const work = join(root, 'work');
    mkdirSync(work);
    const { watch, changed } = watched();
    const { cache } = cacheWith(watch);
    const p = join(work, 'cfg', 'x');
    expect(cache.resolve(p)).toBe(p);
    renameSync(work, join(root, 'gone'));
    mkdirSync(work);
    await changed(root);
    expect(cache.resolve(p)).toBe(p);
    expect(cache.resolve(p)).toBe(p);
    const proven = cache.provenByWatch;
    expect(proven).toBeGreaterThan(0);
    // The watch on the first `work` follows it to `gone`; the new folder's own watch sees this.
    symlinkSync(join(root, 'gone'), join(work, 'cfg'));
    await changed(work);
    expect(cache.resolve(p)).toBe(join(root, 'gone', 'x'));
  });

  it('a flood that overflows the kernel queue, dropping the change\'s own event, still drops every proof (a fault the agent can cause)', async () => {
    const max = Number(readFileSync('/proc/sys/fs/inotify/max_queued_events', 'utf8'));
    if (max > 100_000) {
      console.warn(`overflow test skipped: the inotify queue holds ${max} events, too many to fill in a test`);
      return;
    }
    const root = tempDir('gatehouse-folderwatch-');
    const flood = join(root, 'flood');
    const work = join(root, 'work');
    const secret = join(root, 'secret');
    for (const d of [flood, work, secret]) mkdirSync(d);
    const { watch, seen } = watched();
    const { cache } = cacheWith(watch);
    const p = join(work, 'keys', 'id_rsa');
    expect(cache.resolve(p)).toBe(p);
    // The flooded folder is watched too (an answer rests on it), as /tmp often is.
    expect(cache.resolve(join(flood, 'x'))).toBe(join(flood, 'x'));
    expect(cache.resolve(p)).toBe(p);
    expect(cache.provenByWatch).toBe(1);
    // All in one go, with no loop turn: more events than the queue holds, then the change.
    for (let i = 0; i <= max; i++) mkdirSync(join(flood, String(i)));
    symlinkSync(secret, join(work, 'keys'));
    // Let the loop read everything queued (one read of the whole queue, then the check phase).
    await turn();
    await turn();
    // The change's own event was dropped by the kernel (the fault is real)…
    expect(seen.has(work)).toBe(false);
    expect(seen.has(flood)).toBe(true);
    // …and the answer is still not taken from before it.
    expect(cache.resolve(p)).toBe(join(secret, 'id_rsa'));
  });

  it('fewer events than a burst leave unrelated proofs standing', async () => {
    const root = tempDir('gatehouse-folderwatch-');
    const busy = join(root, 'busy');
    const quiet = join(root, 'quiet');
    mkdirSync(busy);
    mkdirSync(quiet);
    const { watch, changed } = watched();
    const { cache } = cacheWith(watch);
    const q = join(quiet, 'sub', 'f');
    cache.resolve(q);
    cache.resolve(join(busy, 'x'));
    for (let i = 0; i < BURST_LIMIT / 4; i++) writeFileSync(join(busy, `f${i}`), '');
    await changed(busy);
    await turn();
    const before = cache.provenByWatch;
    expect(cache.resolve(q)).toBe(q);
    expect(cache.provenByWatch).toBe(before + 1);
  });

  it('a judge with watchFolders (the host\'s) proves its calls\' paths by watches on the real folders', async () => {
    await initExtractor();
    const root = tempDir('gatehouse-folderwatch-');
    const home = join(root, 'home');
    mkdirSync(join(home, 'proj'), { recursive: true });
    const judge = new GuardedExtractor({ home, watchFolders: true });
    try {
      const call = { id: 'c1', agent: 'a', session: 's', cwd: join(home, 'proj'), source: 'hook' as const, receivedAt: 0, tool: 'Read', arguments: { file_path: 'src/a.ts' } };
      await judge.extract(call);
      await judge.extract(call);
      await judge.extract(call);
      expect(judge.provenByWatch).toBeGreaterThan(0);
      // The folders the answers rest on are really watched by this process's inotify instance.
      expect(watchedInodes()).toContain(statSync(join(home, 'proj')).ino);
    } finally {
      await judge.close();
    }
  });

  it('through a real host: a Read allowed, the agent makes a symlink to a protected folder, and the same Read at once is denied', async () => {
    const root = tempDir('gatehouse-folderwatch-host-');
    const home = join(root, 'home');
    const project = join(root, 'project');
    const secret = join(root, 'secret');
    for (const d of [join(home, 'plugins'), project, secret]) mkdirSync(d, { recursive: true });
    writeFileSync(join(home, 'settings.json'), JSON.stringify({ mode: 'live', autonomy: 'supervised', hookAutonomyAllow: 'allow' }));
    writeFileSync(join(home, 'policy.yaml'), `rules:\n  - name: no-secrets\n    actions: [read]\n    block_paths: ["${secret}/**"]\n    decision: deny\n`);
    const host = createHost({ home, shell: 'serve', log: () => {}, projectDir: project });
    await host.ready;
    const net = await listenForConsolesAndAgents(host, { bindHost: '127.0.0.1', port: 0, staticDir: home });
    try {
      const read = async () => {
        const body = JSON.stringify({ session_id: 's', transcript_path: '/tmp/t.jsonl', cwd: project, hook_event_name: 'PreToolUse', tool_name: 'Read', tool_input: { file_path: join(project, 'keys', 'id_rsa') }, tool_use_id: 'toolu_1', permission_mode: 'default' });
        const res = await http({ port: net.shell.port, path: '/hooks/claude/pre-tool-use', method: 'POST', headers: { Authorization: `Bearer ${net.agentToken}`, 'Content-Type': 'application/json' }, body });
        return (JSON.parse(res.body) as { hookSpecificOutput?: { permissionDecision?: string } }).hookSpecificOutput?.permissionDecision;
      };
      expect(await read()).toBe('allow');
      expect(await read()).toBe('allow');
      // The host watches the folders that answer rests on (the kernel's own list says so).
      expect(watchedInodes()).toContain(statSync(project).ino);
      // The change, and the next call sent straight after it: the call reaches the host through
      // its loop, which hears the change's event first.
      symlinkSync(secret, join(project, 'keys'));
      expect(await read()).toBe('deny');
    } finally {
      await net.shell.close();
      await host.close('test done');
    }
  });
});

/** Inodes watched by this process's inotify instances (from /proc: what the kernel says, not the code). */
function watchedInodes(): number[] {
  const out: number[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    let target: string;
    try {
      target = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue;
    }
    if (target !== 'anon_inode:inotify') continue;
    for (const m of readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8').matchAll(/^inotify wd:\S+ ino:([0-9a-f]+)/gm)) out.push(parseInt(m[1]!, 16));
  }
  return out;
}
