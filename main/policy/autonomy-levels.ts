// The autonomy levels by name, apart from the judge (autonomy.ts): the command line offers them in
// its help without loading policy code.
export const AUTONOMY_LEVELS = ['read-only', 'supervised', 'full'] as const;
export type AutonomyLevel = (typeof AUTONOMY_LEVELS)[number];
