// The precondition of every test of the real bwrap sandbox: bubblewrap usable on this machine.
// Such a test is skipped, saying why, where it is not (a container without user namespaces).
import type { TestContext } from 'vitest';
import { detectSandbox } from '../../main/runner/sandbox.js';

export const sandbox = detectSandbox();

export function needsBwrap(ctx: TestContext): void {
  if (sandbox.kind === 'bwrap') return;
  console.warn(`skipped "${ctx.task.name}": bubblewrap is not usable here: ${sandbox.reason}`);
  ctx.skip();
}
