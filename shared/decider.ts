// Who or what decided a call, as one phrase ("rule builtin.rm-root (builtin:12)", "autonomy
// supervised"). Shared so that agents' answers, the CLI and the console use the same words.
import type { DeciderView } from './contract.js';

export function describeDecider(d: DeciderView): string {
  switch (d.kind) {
    case 'rule':
      return `rule ${d.rule} (${d.origin})`;
    case 'checker':
      return `checker ${d.checker} (rule ${d.rule})`;
    case 'autonomy':
      return `autonomy ${d.level}`;
    case 'grant':
      return `grant ${d.grant}`;
    case 'operator':
      return `operator ${d.operator}`;
    case 'error':
      return `error: ${d.message}`;
  }
}
