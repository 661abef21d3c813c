import { grammarReady, ParseCancelled, parseWithGrammar } from './shell-grammar.js';
import { ExtractionDeadline, extractionTimeLeft } from './collector.js';
import type { Script } from './shell-ir.js';
import { isMainThread } from 'node:worker_threads';
import { IN_PROCESS_PARSE_BUDGET_MS } from './limits.js';
import { dropOldest } from '../../core/drop-oldest.js';

// Parsing is a pure function of the source text, and agents repeat commands (`git status`,
// `npm test`), so parsed scripts are cached. Only the parse is cached: path resolution looks at the
// file system again on every call, because a symlink can change between two calls.
const CACHE_MAX = 1024;
const cache = new Map<string, Script>();

export function parseShell(src: string): Script {
  const hit = cache.get(src);
  if (hit) return hit;
  if (!grammarReady()) throw new Error('shell grammar not loaded: await initExtractor() before extract()');
  const script = parseBounded(src);
  if (cache.size >= CACHE_MAX) {
    dropOldest(cache, CACHE_MAX >> 2);
  }
  if (src.length <= 4096) cache.set(src, script);
  return script;
}

/**
 * tree-sitter's time is bounded on the host's thread, which it cannot be pre-empted from: a parse
 * that runs long is cancelled rather than stalling every other call. Inside a call judged under the
 * calling thread's deadline (guarded-extract.ts), the parse gets what is left of that deadline, and
 * running out is that deadline passing: the call is judged again in the worker, so an agent's
 * command costs the host's thread at most the deadline, however slow the grammar is on it. Outside
 * one, a fixed budget applies (and a cancelled parse fails the call). The extraction worker has a
 * deadline of its own and is terminated instead.
 */
function parseBounded(src: string): Script {
  const left = extractionTimeLeft();
  if (left === Infinity) return parseWithGrammar(src, isMainThread ? IN_PROCESS_PARSE_BUDGET_MS : undefined);
  try {
    return parseWithGrammar(src, Math.max(0, left));
  } catch (err) {
    if (err instanceof ParseCancelled) throw new ExtractionDeadline();
    throw err;
  }
}

export function clearShellCache(): void {
  cache.clear();
}
