// Team migration 4, as shipped: one policy for the team. Each version an operator publishes is a
// row signed with their key; members apply the newest one whose signature verifies and report the
// version they apply in team_members. Team grants ("don't ask again" for every member) are signed
// rows too; revoking one needs no signature (it only takes a permission away). An operator's key
// can be revoked.
// FROZEN: a team database at version 4 was made by exactly this SQL (after 001 to 003). Change the
// schema with a new migration file, never by editing this one (test/main/team/team-schema.test.ts
// holds its hash).
export const TEAM_MIGRATION_004 = {
  version: 4,
  name: 'team policy: signed versions, the version each member applies, signed team grants',
  sql: `
    CREATE TABLE team_policies (
      version      int         PRIMARY KEY CHECK (version > 0),
      -- The policy file's text exactly as signed; sha256 is its hex digest, which the signature covers.
      text         text        NOT NULL,
      sha256       text        NOT NULL,
      operator     text        NOT NULL,
      console      text        NOT NULL,
      published_at bigint      NOT NULL,
      signature    text        NOT NULL,
      stored_at    timestamptz NOT NULL DEFAULT now()
    );
    ALTER TABLE team_members ADD COLUMN policy_version int;
    CREATE FUNCTION team_policy_notify() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('gatehouse_team_policy', json_build_object('version', NEW.version)::text);
      RETURN NEW;
    END $$;
    CREATE TRIGGER team_policies_notify AFTER INSERT ON team_policies FOR EACH ROW EXECUTE FUNCTION team_policy_notify();
    -- Members read every version and write none; consoles publish (members still apply only a
    -- version a registered operator signed: team-policy.ts).
    REVOKE ALL ON team_policies FROM PUBLIC;
    GRANT SELECT ON team_policies TO gatehouse_member, gatehouse_operator;
    GRANT INSERT ON team_policies TO gatehouse_operator;
    CREATE TABLE team_grants (
      id         text        PRIMARY KEY,
      kind       text        NOT NULL CHECK (kind IN ('command', 'path', 'host')),
      value      text        NOT NULL,
      -- One member, or null for every member.
      member     text,
      operator   text        NOT NULL,
      console    text        NOT NULL,
      created_at bigint      NOT NULL,
      expires_at bigint      NOT NULL,
      signature  text        NOT NULL,
      revoked_at bigint,
      revoked_by text
    );
    CREATE FUNCTION team_grants_notify() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('gatehouse_team_grants', json_build_object('id', NEW.id)::text);
      RETURN NEW;
    END $$;
    CREATE TRIGGER team_grants_notify AFTER INSERT OR UPDATE ON team_grants FOR EACH ROW EXECUTE FUNCTION team_grants_notify();
    REVOKE ALL ON team_grants FROM PUBLIC;
    GRANT SELECT ON team_grants TO gatehouse_member, gatehouse_operator;
    GRANT INSERT, UPDATE (revoked_at, revoked_by) ON team_grants TO gatehouse_operator;
    ALTER TABLE team_grants ENABLE ROW LEVEL SECURITY;
    CREATE POLICY member_reads_own ON team_grants FOR SELECT TO gatehouse_member USING (member IS NULL OR member = team_my_member());
    CREATE POLICY console_reads ON team_grants FOR SELECT TO gatehouse_operator USING (true);
    CREATE POLICY console_grants ON team_grants FOR INSERT TO gatehouse_operator WITH CHECK (true);
    CREATE POLICY console_revokes ON team_grants FOR UPDATE TO gatehouse_operator USING (true) WITH CHECK (true);
    -- An operator's key can be revoked (by the owner): from then on nothing it signs is honoured.
    -- What it signed before still verifies, judged by when the database stored it, which the
    -- database sets itself: a writer cannot backdate a row to before a revocation.
    ALTER TABLE team_operators ADD COLUMN revoked_at timestamptz;
    CREATE FUNCTION team_stored_now() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      NEW.stored_at := now();
      RETURN NEW;
    END $$;
    CREATE TRIGGER team_decisions_stored BEFORE INSERT OR UPDATE ON team_decisions FOR EACH ROW EXECUTE FUNCTION team_stored_now();
    CREATE TRIGGER team_policies_stored BEFORE INSERT OR UPDATE ON team_policies FOR EACH ROW EXECUTE FUNCTION team_stored_now();
    -- Members holding team grants check them again when a key is revoked (on the grants' channel).
    CREATE FUNCTION team_operator_revoked_notify() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('gatehouse_team_grants', json_build_object('operator', NEW.name)::text);
      RETURN NEW;
    END $$;
    CREATE TRIGGER team_operators_revoked AFTER UPDATE OF revoked_at ON team_operators FOR EACH ROW EXECUTE FUNCTION team_operator_revoked_notify();
    ALTER TABLE team_policies ENABLE ROW LEVEL SECURITY;
    CREATE POLICY everyone_reads ON team_policies FOR SELECT TO gatehouse_member, gatehouse_operator USING (true);
    CREATE POLICY console_publishes ON team_policies FOR INSERT TO gatehouse_operator WITH CHECK (true);
  `,
} as const;
