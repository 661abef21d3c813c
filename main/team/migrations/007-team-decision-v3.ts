// Team migration 7, as shipped: the working directory of an ask, shown and signed (v3 decisions).
// A call's working directory decides where every relative path in its arguments lands (`rm -rf
// build`), so a member now publishes it with the ask, operators are shown it, and a decision signs
// it with the tool, agent and session (decision-signature.ts); the member compares it with the
// call it is about to release. Rows stored before this migration hold v1 or v2 signatures (cwd
// null): `audit verify --team` still checks them, judged by their stored_at against the applied_at
// of migrations 6 and 7 in team_schema. From here on the database refuses a decision without a
// working directory (NOT VALID: checked on every new or changed row, not on the old ones), so a
// console role cannot store a v2 decision, nor an older Gatehouse store one. An ask published by
// a member before the upgrade has none: it cannot be signed from a team console (team-decide.ts).
// FROZEN: a team database at version 7 was made by exactly this SQL (after 001-006). Change the
// schema with a new migration file, never by editing this one (test/main/team/team-schema.test.ts
// holds its hash).
export const TEAM_MIGRATION_007 = {
  version: 7,
  name: 'v3 decision signatures (the working directory shown and signed)',
  sql: `
    ALTER TABLE team_asks ADD COLUMN cwd text;
    ALTER TABLE team_decisions ADD COLUMN cwd text;
    ALTER TABLE team_decisions ADD CONSTRAINT team_decisions_v3 CHECK (cwd IS NOT NULL) NOT VALID;
  `,
} as const;
