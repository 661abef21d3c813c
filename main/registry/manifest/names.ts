// Plugin and tool names. Agents see a tool as `<plugin>__<tool>` (or the plugin name alone), and
// MCP limits tool names to ^[a-zA-Z0-9_-]{1,64}$, so both parts live inside that alphabet and the
// double underscore is reserved as the separator. A plugin name may not end in "_" either:
// "a_" + "__" + "b" and "a" + "__" + "_b" would both read "a___b".

export const NAME_MAX = 64;
const ALLOWED = /^[a-zA-Z0-9_-]$/;

export type NameKind = 'plugin' | 'tool';

/** What is wrong with a name, as clauses ("contains a space"), or [] when it is fine. */
export function nameFaults(name: string, kind: NameKind): string[] {
  if (name.length === 0) return ['is empty'];
  const faults: string[] = [];
  const bad = [...new Set([...name].filter((c) => !ALLOWED.test(c)))];
  if (bad.length) faults.push(`contains ${bad.map(describeChar).join(', ')}, which ${bad.length === 1 ? 'is' : 'are'} not allowed`);
  if (name.length > NAME_MAX) faults.push(`is ${name.length} characters long, more than the ${NAME_MAX} that MCP allows`);
  if (name.includes('__')) faults.push('contains a double underscore, which is reserved to separate plugin and tool names (plugin__tool)');
  if (kind === 'plugin' && name.endsWith('_') && !name.includes('__')) faults.push('ends with an underscore, which would make plugin__tool names ambiguous');
  return faults;
}

/** A name close to `name` that follows the rules, to suggest in a message. */
export function suggestName(name: string, kind: NameKind): string {
  let s = name
    .replace(/[^a-zA-Z0-9_-]+/g, '-')
    .replace(/_{2,}/g, '_')
    .replace(/-{2,}/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, NAME_MAX);
  if (kind === 'plugin') s = s.replace(/_+$/, '');
  return s || (kind === 'plugin' ? 'my-plugin' : 'my-tool');
}

/** One sentence for a bad plugin or tool name. */
export function nameMessage(name: string, kind: NameKind, field: string): string {
  const faults = nameFaults(name, kind);
  const what = kind === 'plugin' ? `The plugin name \`${field}\` = ${JSON.stringify(clip(name))}` : `The tool name ${JSON.stringify(clip(name))} in \`${field}\``;
  const fix = `use 1 to ${NAME_MAX} letters, digits, _ or - without a double underscore${kind === 'plugin' ? ' and not ending in _' : ''}, e.g. ${JSON.stringify(suggestName(name, kind))}`;
  return `${what} ${joinClauses(faults.length ? faults : ['is not a valid name'])}; ${fix}.`;
}

function describeChar(c: string): string {
  if (c === ' ') return 'a space';
  if (c === '\t') return 'a tab';
  if (c === '.') return 'a dot';
  if (c === '/' || c === '\\') return `a slash (${c})`;
  const code = c.codePointAt(0) ?? 0;
  if (code < 0x20 || (code >= 0x7f && code < 0xa0)) return `the control character U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  return JSON.stringify(c);
}

function joinClauses(parts: string[]): string {
  if (parts.length <= 1) return parts[0] ?? '';
  return `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}

function clip(s: string): string {
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}
