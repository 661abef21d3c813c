// Where a call came from, as an operator reads it. A terminal adapter's permission question
// travels the hook's path through the pipeline (source "hook"), but no Claude Code hook sent it:
// labelling it "hook" sent operators looking for a hook that was never configured.
// The host files an adapter's question under the agent `terminal:<pty id>`; an agent token's name
// cannot hold ":" (main/gateway/agent-tokens.ts, AGENT_NAME), so no agent can pass for one. If
// token names ever allow ":", this must key on something the host alone sets.

export interface CallOrigin {
  agent: string;
  source: string;
  client?: string | undefined;
}

/** The terminal adapter that asked, or null for an agent's own call. */
export function adapterOf(call: CallOrigin): string | null {
  if (!call.agent.startsWith('terminal:')) return null;
  // The host labels it "adapter <plugin>"; the gateway's label cleaning turns the space into "_".
  const plugin = /^adapter[ _](.+)$/.exec(call.client ?? '')?.[1];
  return plugin ?? 'unknown adapter';
}

/** "hook", "mcp", "api", "console", or "terminal adapter claude-code". */
export function callSourceLabel(call: CallOrigin): string {
  const adapter = adapterOf(call);
  if (adapter !== null) return `terminal adapter ${adapter}`;
  return call.source;
}
