// The judge on one Bash command sent by a hook from a project folder in a fixed home, with no
// links resolved on disk: for tests of what the judge extracts (the real-host decisions are the
// security corpus's). Call initExtractor() in a beforeAll first.
import { extract } from '../../main/policy/extract/index.js';
import type { Extraction, ToolCall } from '../../main/policy/types.js';

export const JUDGE_HOME = '/home/u';
export const JUDGE_PROJ = `${JUDGE_HOME}/proj`;

export function judgeBash(command: string, cwd = JUDGE_PROJ): Extraction {
  const call: ToolCall = { id: 'c1', agent: 'test', session: 's1', tool: 'Bash', arguments: { command }, cwd, source: 'hook', receivedAt: 0 };
  return extract(call, { home: JUDGE_HOME, resolveSymlinks: false });
}
