// Team migration 6, as shipped: v2 decision signatures, and published asks that only close.
// A decision now also signs the tool, agent and session its ask showed the operator
// (decision-signature.ts), kept in three new columns of team_decisions; a member compares them
// with the call it is about to release. Rows stored before this migration hold v1 signatures (the
// three null): `audit verify --team` still checks them, judged by their stored_at against this
// migration's applied_at in team_schema. From here on the database refuses a decision without the
// three (NOT VALID: checked on every new or changed row, not on the old ones), so a console role
// cannot store a v1 decision, nor an older Gatehouse store one.
// A member's role could UPDATE every column of its own asks: it relabelled the tool (or agent, or
// session) after the member had published it, so an operator could be shown one tool and sign
// another, read again a moment later. Now it may change only state and closed_at, and only while
// the ask is pending: what an operator lists is what a decision signs. (A label that was false
// from the start, written by the member's role before its host published the ask, is signed as
// shown, and the member refuses it: the signature binds the label.)
// FROZEN: a team database at version 6 was made by exactly this SQL (after 001-005). Change the
// schema with a new migration file, never by editing this one (test/main/team/team-schema.test.ts
// holds its hash).
export const TEAM_MIGRATION_006 = {
  version: 6,
  name: 'v2 decision signatures (tool, agent and session signed); published asks only close',
  sql: `
    ALTER TABLE team_decisions ADD COLUMN tool text, ADD COLUMN agent text, ADD COLUMN session text;
    ALTER TABLE team_decisions ADD CONSTRAINT team_decisions_v2 CHECK (tool IS NOT NULL AND agent IS NOT NULL AND session IS NOT NULL) NOT VALID;
    REVOKE UPDATE ON team_asks FROM gatehouse_member;
    GRANT UPDATE (state, closed_at) ON team_asks TO gatehouse_member;
    -- Restrictive: it narrows member_own (migration 3). WITH CHECK (true): closing makes the row
    -- not pending, which a USING reused as the check would refuse.
    CREATE POLICY member_closes_pending ON team_asks AS RESTRICTIVE FOR UPDATE TO gatehouse_member USING (state = 'pending') WITH CHECK (true);
  `,
} as const;
