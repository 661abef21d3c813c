// MCP tool annotations (readOnlyHint, destructiveHint, idempotentHint, openWorldHint) for the
// tools Gatehouse lists. Clients act on them: Codex asks its own approval for a tool that does
// not say it is read-only, which `codex exec` (approval policy "never") turns into a failure.
// They are hints derived from what Gatehouse knows, never a decision: every call still goes
// through the pipeline whatever a tool says about itself.
//
// - A tool plugin: its manifest's permissions, enforced by the sandbox. Read-only when the
//   sandbox is strict and it may write nowhere; open world when it may reach a host (or runs
//   unsandboxed, where nothing says it cannot).
// - The built-in shell: anything (destructive, open world).
// - An upstream MCP server's tool: the server's own hints, with the plugin's manifest filling in
//   what the server leaves out.
import type { PluginManifest } from '../registry/types.js';

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export const SHELL_TOOL_ANNOTATIONS: Readonly<ToolAnnotations> = Object.freeze({
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
});

type ManifestFacts = Pick<PluginManifest, 'permissions' | 'sandbox'>;

/** What a plugin's manifest lets its tools do, as MCP hints. */
export function pluginToolAnnotations(m: ManifestFacts): ToolAnnotations {
  const confined = m.sandbox === 'strict';
  const readOnly = confined && m.permissions.write.length === 0;
  const openWorld = !confined || m.permissions.hosts.length > 0;
  // destructiveHint only means something for a tool that writes; a writer may overwrite or
  // delete within what it was given, and nothing in a manifest says it will not.
  return readOnly ? { readOnlyHint: true, openWorldHint: openWorld } : { readOnlyHint: false, destructiveHint: true, openWorldHint: openWorld };
}

/**
 * A plugin whose manifest confines it to reading: the strict sandbox, no write paths, no hosts.
 * The judge counts such a tool's calls as reads (autonomy.ts) only while the sandbox really
 * holds it (Gateway.confinedReader); loosening this lets a writer or a sender pass as a reader
 * at `supervised` without an operator.
 */
export function manifestReadsOnly(m: ManifestFacts): boolean {
  return m.sandbox === 'strict' && m.permissions.write.length === 0 && m.permissions.hosts.length === 0;
}

const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

/** The upstream server's hints as it declared them (booleans only), the manifest's where it is silent. */
export function upstreamToolAnnotations(declared: Record<string, unknown> | undefined, manifest: ManifestFacts | null): ToolAnnotations {
  const out: ToolAnnotations = manifest ? pluginToolAnnotations(manifest) : { readOnlyHint: false, destructiveHint: true, openWorldHint: true };
  if (!declared) return out;
  if (typeof declared.title === 'string') out.title = declared.title;
  for (const k of HINTS) if (typeof declared[k] === 'boolean') out[k] = declared[k] as boolean;
  // A server that says it is read-only has no destructive hint to give (MCP: meaningful only when not read-only).
  if (out.readOnlyHint === true && typeof declared.destructiveHint !== 'boolean') delete out.destructiveHint;
  return out;
}
