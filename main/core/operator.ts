// The operator's name as recorded with every operator action. In core/ because the shells, the
// CLI and the composition root all record it, and none of them should import another for it.
import { userInfo } from 'node:os';

export function operatorName(): string {
  try {
    return userInfo().username;
  } catch {
    // No passwd entry (some containers): still record something rather than fail the action.
    return 'unknown';
  }
}
