// The Rules domain: the policy file and its rules, loaded on connect and on policy.changed
// (bindPolicy), and what the Rules view does with them: check the editor text as the operator
// types, save it (refused while it has problems), and follow changes on disk without clobbering
// unsaved edits. Every failure lands in the store as a sentence.
import { errorMessage } from '../lib/error-message.ts';
import { initialPolicyState, policyDirty, usePolicyStore } from '../stores/policy-store.ts';
import type { GatehouseClient } from '../transport/client.ts';
import { bindDomain, latest } from './bind-domain.ts';

const get = usePolicyStore.getState;
const set = usePolicyStore.setState;

/** The policy.get answer to keep: an older one never overwrites a newer one or a save's answer. */
const loads = latest();
/** The policy.check answer to keep: only the check of the latest text counts. */
const checks = latest();

export function bindPolicy(client: GatehouseClient): () => void {
  return bindDomain(client, (d) => {
    // The editor keeps unsaved edits; loadPolicy announces a changed file instead of replacing them.
    d.on('policy.changed', () => void loadPolicy(client));
    return {
      load: () => loadPolicy(client),
      reset: () => {
        loads.supersede();
        checks.supersede();
        set({ ...initialPolicyState });
      },
    };
  });
}

/**
 * Loads policy.get. The editor takes the file's text unless it holds unsaved edits; then the
 * rules, hit counts and error still refresh, and a changed file is announced instead of loaded.
 */
export async function loadPolicy(client: GatehouseClient): Promise<void> {
  const req = loads.begin();
  try {
    const policy = await client.call('policy.get', {});
    if (!req.current()) return;
    const s = get();
    if (!policyDirty(s)) {
      set({ policy, loadError: null, diskChanged: false, ...(s.policy === null || policy.text !== s.saved ? { saved: policy.text, buffer: policy.text, rev: s.rev + 1 } : {}) });
    } else {
      set({ policy, loadError: null, diskChanged: s.diskChanged || policy.text !== s.saved });
    }
  } catch (err) {
    if (req.current()) set({ loadError: errorMessage(err) });
  }
}

/** Drops the unsaved edits and takes the file as it is on disk now. */
export async function reloadFromDisk(client: GatehouseClient): Promise<void> {
  set((s) => ({ buffer: s.saved, diskChanged: false, saveMessage: null }));
  await loadPolicy(client);
}

export function updatePolicyBuffer(text: string): void {
  if (get().buffer === text) return;
  set({ buffer: text, saveMessage: null });
}

export async function checkPolicy(client: GatehouseClient, text: string): Promise<void> {
  const req = checks.begin();
  set({ checking: true });
  try {
    const check = await client.call('policy.check', { text });
    if (!req.current()) return;
    set({ check, checkedText: text, checkError: null, checking: false });
  } catch (err) {
    // Keep the last markers; say the check itself failed.
    if (req.current()) set({ checkError: errorMessage(err), checking: false });
  }
}

/** Saves the buffer. The host refuses text with problems; the text stays in the editor either way. */
export async function savePolicy(client: GatehouseClient): Promise<void> {
  const s = get();
  if (s.saving || !s.policy) return;
  const text = s.buffer;
  set({ saving: true, saveMessage: null });
  try {
    const r = await client.call('policy.save', { text });
    // The save answer is the newest state: drop any policy.get still in flight.
    loads.supersede();
    checks.supersede();
    if (r.saved) {
      set({
        saving: false,
        policy: r.policy,
        saved: text,
        diskChanged: false,
        check: { problems: r.problems, examples: r.examples, broken: false },
        checkedText: text,
        checking: false,
        // Typing may have continued while the save was in flight: that text stays in the buffer, unsaved.
        saveMessage: { ok: true, text: `Saved ${r.policy.file}: ${r.policy.rules.filter((x) => x.source !== 'builtin').length} user rules active.` },
      });
    } else {
      const n = r.problems.length;
      set({
        saving: false,
        policy: r.policy,
        check: { problems: r.problems, examples: r.examples, broken: true },
        checkedText: text,
        checking: false,
        saveMessage: { ok: false, text: `Not saved: the text has ${n} problem${n === 1 ? '' : 's'} (listed below). Nothing was written; your text is still in the editor.` },
      });
    }
  } catch (err) {
    set({ saving: false, saveMessage: { ok: false, text: `Could not save the policy: ${errorMessage(err)}` } });
  }
}

export function revealPolicyLine(line: number, column: number): void {
  set((s) => ({ reveal: { line, column, seq: (s.reveal?.seq ?? 0) + 1 } }));
}
