export { ApprovalQueue, APPROVAL_EXPIRY_REASON, SHUTDOWN_REASON, DEFAULT_APPROVAL_EXPIRY_MS, DEFAULT_GRANT_MS, DEFAULT_HISTORY_LIMIT, DEFAULT_MAX_PENDING, type ApprovalQueueDeps } from './approval-queue.js';
export { Grants, type CreateGrant, type GrantsDeps } from './grants.js';
export { argsHash, canonicalArgs, compileArgumentPattern } from './args-match.js';
export { proposeAlwaysRule } from './always-rule.js';
export { realTimers, runAt, systemClock, type Clock, type Timers } from './timers.js';
export * from './types.js';
export { ApprovalStore } from './approval-store.js';
