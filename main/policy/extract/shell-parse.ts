import { grammarReady, parseWithGrammar } from './shell-grammar.js';
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
  // A budget on tree-sitter's own time on the host's thread, which cannot be pre-empted: a parse
  // that runs long is cancelled (and the call denied) rather than stalling every other call. The
  // extraction worker has a deadline of its own and is terminated instead.
  const script = parseWithGrammar(src, isMainThread ? IN_PROCESS_PARSE_BUDGET_MS : undefined);
  if (cache.size >= CACHE_MAX) {
    dropOldest(cache, CACHE_MAX >> 2);
  }
  if (src.length <= 4096) cache.set(src, script);
  return script;
}

export function clearShellCache(): void {
  cache.clear();
}
