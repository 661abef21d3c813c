// The operations a tool call can perform, in one list: the policy engine, the checker protocol
// and the contract with the console all read it, so a new operation cannot reach one and not the
// others. Order matters only for display.
export const OPERATIONS = ['read', 'write', 'delete', 'copy', 'move', 'execute', 'network'] as const;
export type Operation = (typeof OPERATIONS)[number];
