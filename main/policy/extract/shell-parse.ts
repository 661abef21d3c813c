import { grammarReady, parseWithGrammar } from './shell-grammar.js';
import type { Script } from './shell-ir.js';

// Parsing is a pure function of the source text, and agents repeat commands (`git status`,
// `npm test`), so parsed scripts are cached. Only the parse is cached: path resolution looks at the
// file system again on every call, because a symlink can change between two calls.
const CACHE_MAX = 1024;
const cache = new Map<string, Script>();

export function parseShell(src: string): Script {
  const hit = cache.get(src);
  if (hit) return hit;
  if (!grammarReady()) throw new Error('shell grammar not loaded: await initExtractor() before extract()');
  const script = parseWithGrammar(src);
  if (cache.size >= CACHE_MAX) {
    // Drop the oldest quarter; Map keeps insertion order.
    let n = CACHE_MAX >> 2;
    for (const k of cache.keys()) {
      cache.delete(k);
      if (--n <= 0) break;
    }
  }
  if (src.length <= 4096) cache.set(src, script);
  return script;
}

export function clearShellCache(): void {
  cache.clear();
}
