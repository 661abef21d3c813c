// Names shared by the Lua worker and the host side of an adapter session.

/** Why an adapter session was ended by a limit: the instruction budget, the memory cap, or the wall-clock backstop. */
export type AdapterLimitError = 'ops_exceeded' | 'memory_exceeded' | 'timeout';
