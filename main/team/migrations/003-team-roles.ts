// Team migration 3, as shipped: least privilege. Every member machine logs in with a role of its
// own (group gatehouse_member, mapped to its member name in team_member_roles), operators' consoles
// with roles in group gatehouse_operator; row-level security lets a member write only its own
// events, member row, forks and asks, read only its own rows and decisions plus the operators'
// public keys, and write no decision and no operator key. Consoles read everything and insert
// decisions (which members still honour only when signed: team-inbox.ts). The owner of the tables
// (who ran `team init`) keeps every right and registers operators.
// FROZEN: a team database at version 3 was made by exactly this SQL (after 001 and 002). Change the
// schema with a new migration file, never by editing this one (test/main/team/team-schema.test.ts
// holds its hash).
export const TEAM_MIGRATION_003 = {
  version: 3,
  name: 'least privilege: a role per member, row-level security, console roles',
  sql: `
    -- Group roles are cluster-wide: another team database in the same cluster may have made them.
    DO $$ BEGIN
      IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'gatehouse_member') THEN CREATE ROLE gatehouse_member NOLOGIN; END IF;
      IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'gatehouse_operator') THEN CREATE ROLE gatehouse_operator NOLOGIN; END IF;
    END $$;
    CREATE TABLE team_member_roles (
      role   name PRIMARY KEY,
      member text NOT NULL UNIQUE
    );
    -- The member the logged-in role ships as (null: not a member role, which then matches no row).
    CREATE FUNCTION team_my_member() RETURNS text LANGUAGE sql STABLE AS $$
      SELECT member FROM team_member_roles WHERE role = current_user
    $$;
    REVOKE ALL ON team_schema, team_members, team_events, team_forks, team_asks, team_decisions, team_operators, team_member_roles FROM PUBLIC;
    GRANT SELECT ON team_schema, team_operators, team_member_roles TO gatehouse_member, gatehouse_operator;
    GRANT SELECT, INSERT, UPDATE ON team_members, team_asks TO gatehouse_member;
    GRANT SELECT, INSERT ON team_events TO gatehouse_member;
    GRANT INSERT ON team_forks TO gatehouse_member;
    GRANT SELECT ON team_decisions TO gatehouse_member;
    GRANT SELECT ON team_members, team_events, team_forks, team_asks, team_decisions TO gatehouse_operator;
    GRANT INSERT ON team_decisions TO gatehouse_operator;

    ALTER TABLE team_members ENABLE ROW LEVEL SECURITY;
    ALTER TABLE team_events ENABLE ROW LEVEL SECURITY;
    ALTER TABLE team_forks ENABLE ROW LEVEL SECURITY;
    ALTER TABLE team_asks ENABLE ROW LEVEL SECURITY;
    ALTER TABLE team_decisions ENABLE ROW LEVEL SECURITY;
    ALTER TABLE team_operators ENABLE ROW LEVEL SECURITY;
    CREATE POLICY member_own ON team_members FOR ALL TO gatehouse_member USING (name = team_my_member()) WITH CHECK (name = team_my_member());
    CREATE POLICY member_own ON team_events FOR ALL TO gatehouse_member USING (member = team_my_member()) WITH CHECK (member = team_my_member());
    CREATE POLICY member_own ON team_forks FOR ALL TO gatehouse_member USING (member = team_my_member()) WITH CHECK (member = team_my_member());
    CREATE POLICY member_own ON team_asks FOR ALL TO gatehouse_member USING (member = team_my_member()) WITH CHECK (member = team_my_member());
    CREATE POLICY member_reads_own ON team_decisions FOR SELECT TO gatehouse_member USING (member = team_my_member());
    CREATE POLICY everyone_reads ON team_operators FOR SELECT TO gatehouse_member, gatehouse_operator USING (true);
    CREATE POLICY console_reads ON team_members FOR SELECT TO gatehouse_operator USING (true);
    CREATE POLICY console_reads ON team_events FOR SELECT TO gatehouse_operator USING (true);
    CREATE POLICY console_reads ON team_forks FOR SELECT TO gatehouse_operator USING (true);
    CREATE POLICY console_reads ON team_asks FOR SELECT TO gatehouse_operator USING (true);
    CREATE POLICY console_reads ON team_decisions FOR SELECT TO gatehouse_operator USING (true);
    CREATE POLICY console_decides ON team_decisions FOR INSERT TO gatehouse_operator WITH CHECK (true);
  `,
} as const;
