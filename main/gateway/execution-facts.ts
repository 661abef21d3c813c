// How a call that ran was run, for the agent: whether the sandbox held it and, for a WebAssembly
// plugin, the fuel it burnt of its limit. MCP results carry it in `_meta.gatehouse`, the agent
// API in its `result`; both build it here so the two never say different things.
import type { ToolResult } from '../pipeline/call-pipeline.js';

export interface ExecutionFacts {
  /** The call ran in the sandbox (bubblewrap, or a WebAssembly plugin's isolated child in it). */
  sandboxed: boolean;
  /** WebAssembly plugins only: fuel burnt and the limit the manifest set. */
  fuel?: { used: number; limit: number };
}

export function executionFacts(res: Pick<ToolResult, 'sandboxed' | 'fuelUsed' | 'fuelLimit'>): ExecutionFacts {
  return {
    sandboxed: res.sandboxed,
    ...(res.fuelUsed !== undefined && res.fuelLimit !== undefined ? { fuel: { used: res.fuelUsed, limit: res.fuelLimit } } : {}),
  };
}
