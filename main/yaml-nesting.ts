// How deeply a YAML text nests, measured before the `yaml` library composes it.
//
// WHY: yaml's composer recurses once per level. A few hundred levels (`[[[[…`, 2 KB of text)
// overflow the stack; it reports that as a document error, but a later parse in the same process
// can then abort the whole process (V8: "RegExpCompiler Allocation failed - process out of
// memory"), which no try/catch stops. A plugin folder's gatehouse.yaml or a policy.yaml could so
// take the host down at discovery, on a rescan or on a reload. yaml's CST parser keeps its own
// stack (no recursion), so the depth is measured on it, iteratively, and deep texts are refused
// before anything recursive sees them.
import { Parser } from 'yaml';

/** Levels of collections at most. Manifests and policies need fewer than ten. */
export const MAX_YAML_NESTING = 64;

interface CstNode {
  type?: string;
  offset?: number;
  value?: unknown;
  items?: { key?: unknown; value?: unknown }[];
}

/** The first place `src` nests deeper than `max` collections (its offset), or null when it does not. */
export function yamlTooDeep(src: string, max = MAX_YAML_NESTING): { depth: number; offset: number } | null {
  for (const doc of new Parser().parse(src)) {
    const stack: [CstNode, number][] = [[doc as CstNode, 0]];
    while (stack.length) {
      const [node, depth] = stack.pop()!;
      const collection = node.type === 'block-map' || node.type === 'block-seq' || node.type === 'flow-collection';
      const inner = collection ? depth + 1 : depth;
      if (inner > max) return { depth: inner, offset: node.offset ?? 0 };
      const push = (child: unknown) => {
        if (child && typeof child === 'object') stack.push([child as CstNode, inner]);
      };
      push(node.value);
      for (const item of node.items ?? []) {
        push(item.key);
        push(item.value);
      }
    }
  }
  return null;
}

/** The sentence for a refused text. */
export function tooDeepMessage(what: string): string {
  return `${what} nests collections more than ${MAX_YAML_NESTING} levels deep, which Gatehouse does not read (it needs a few); flatten it`;
}
