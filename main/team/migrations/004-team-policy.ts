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
    -- SECURITY: every team function runs with a fixed search path. A trigger runs as whoever wrote
    -- the row (the owner revoking a key, say), and an unqualified name in its body is looked up on
    -- the search path at that moment: a function a member planted in public (allowed to every role
    -- before PostgreSQL 15), or a temporary table a member made (pg_temp is searched first for
    -- tables), would run or be read in the owner's place. So: functions pinned to pg_catalog, table
    -- names qualified, and nobody but the owner may create in public or make temporary tables here.
    ALTER FUNCTION team_decided_notify() SET search_path = pg_catalog, pg_temp;
    ALTER FUNCTION team_asks_notify() SET search_path = pg_catalog, pg_temp;
    CREATE OR REPLACE FUNCTION team_my_member() RETURNS text LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
      SELECT member FROM public.team_member_roles WHERE role = current_user
    $$;
    REVOKE CREATE ON SCHEMA public FROM PUBLIC;
    DO $$ BEGIN EXECUTE pg_catalog.format('REVOKE TEMPORARY ON DATABASE %I FROM PUBLIC', pg_catalog.current_database()); END $$;

    CREATE TABLE team_policies (
      version      int         PRIMARY KEY CHECK (version > 0),
      -- The policy file's text exactly as signed; sha256 is its hex digest, which the signature covers.
      -- Bounded: members read every version newer than theirs.
      text         text        NOT NULL CHECK (octet_length(text) <= 1048576),
      sha256       text        NOT NULL CHECK (length(sha256) = 64),
      operator     text        NOT NULL CHECK (length(operator) <= 64),
      console      text        NOT NULL CHECK (length(console) <= 255),
      published_at bigint      NOT NULL,
      signature    text        NOT NULL CHECK (length(signature) <= 200),
      stored_at    timestamptz NOT NULL DEFAULT now()
    );
    ALTER TABLE team_members ADD COLUMN policy_version int;
    -- Versions are numbered one after another, checked here: a row at version 2147483647 (signed
    -- or not) would otherwise leave no number for the next one, and publishing would stop for good.
    CREATE FUNCTION team_policy_next() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
    BEGIN
      PERFORM pg_advisory_xact_lock(hashtext('gatehouse team policy version'));
      IF NEW.version <> (SELECT coalesce(max(version), 0) + 1 FROM public.team_policies) THEN
        RAISE EXCEPTION 'team policy version % is not the next one', NEW.version USING ERRCODE = 'unique_violation';
      END IF;
      NEW.stored_at := clock_timestamp();
      RETURN NEW;
    END $$;
    CREATE TRIGGER team_policies_next BEFORE INSERT ON team_policies FOR EACH ROW EXECUTE FUNCTION team_policy_next();
    CREATE FUNCTION team_policy_notify() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
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
    ALTER TABLE team_policies ENABLE ROW LEVEL SECURITY;
    CREATE POLICY everyone_reads ON team_policies FOR SELECT TO gatehouse_member, gatehouse_operator USING (true);
    CREATE POLICY console_publishes ON team_policies FOR INSERT TO gatehouse_operator WITH CHECK (true);

    CREATE TABLE team_grants (
      id         text        PRIMARY KEY CHECK (length(id) <= 64),
      kind       text        NOT NULL CHECK (kind IN ('command', 'path', 'host')),
      value      text        NOT NULL CHECK (length(value) <= 1024),
      -- One member, or null for every member.
      member     text        CHECK (length(member) <= 255),
      operator   text        NOT NULL CHECK (length(operator) <= 64),
      console    text        NOT NULL CHECK (length(console) <= 255),
      created_at bigint      NOT NULL,
      expires_at bigint      NOT NULL,
      signature  text        NOT NULL CHECK (length(signature) <= 200),
      revoked_at bigint,
      revoked_by text        CHECK (length(revoked_by) <= 255),
      stored_at  timestamptz NOT NULL DEFAULT now()
    );
    -- A revocation is final: a console role (which may revoke) cannot bring a grant back, and the
    -- database, not the writer, says when a row was stored and when it was revoked.
    CREATE FUNCTION team_grants_guard() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        NEW.stored_at := clock_timestamp();
        NEW.revoked_at := NULL;
        NEW.revoked_by := NULL;
        RETURN NEW;
      END IF;
      IF OLD.revoked_at IS NOT NULL THEN
        RAISE EXCEPTION 'team grant % was revoked already; a revocation is final', OLD.id USING ERRCODE = 'insufficient_privilege';
      END IF;
      IF NEW.revoked_at IS NULL OR (NEW.id, NEW.kind, NEW.value, NEW.member, NEW.operator, NEW.console, NEW.created_at, NEW.expires_at, NEW.signature, NEW.stored_at)
         IS DISTINCT FROM (OLD.id, OLD.kind, OLD.value, OLD.member, OLD.operator, OLD.console, OLD.created_at, OLD.expires_at, OLD.signature, OLD.stored_at) THEN
        RAISE EXCEPTION 'a team grant can only be revoked' USING ERRCODE = 'insufficient_privilege';
      END IF;
      NEW.revoked_at := (extract(epoch FROM clock_timestamp()) * 1000)::bigint;
      RETURN NEW;
    END $$;
    CREATE TRIGGER team_grants_guard BEFORE INSERT OR UPDATE ON team_grants FOR EACH ROW EXECUTE FUNCTION team_grants_guard();
    CREATE FUNCTION team_grants_notify() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
    BEGIN
      PERFORM pg_notify('gatehouse_team_grants', '');
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
    -- database sets itself (clock_timestamp: the moment of the write, not of its transaction's
    -- start), so a writer cannot date a row before a revocation.
    ALTER TABLE team_operators ADD COLUMN revoked_at timestamptz;
    CREATE FUNCTION team_stored_now() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
    BEGIN
      NEW.stored_at := clock_timestamp();
      RETURN NEW;
    END $$;
    CREATE TRIGGER team_decisions_stored BEFORE INSERT OR UPDATE ON team_decisions FOR EACH ROW EXECUTE FUNCTION team_stored_now();
    CREATE FUNCTION team_operator_revoked() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
    BEGIN
      IF TG_OP = 'UPDATE' AND OLD.revoked_at IS NOT NULL THEN
        RAISE EXCEPTION 'operator %''s key was revoked already; a revocation is final', OLD.name USING ERRCODE = 'insufficient_privilege';
      END IF;
      IF NEW.revoked_at IS NOT NULL THEN NEW.revoked_at := clock_timestamp(); END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER team_operators_revoked_at BEFORE UPDATE ON team_operators FOR EACH ROW EXECUTE FUNCTION team_operator_revoked();
    -- Members check their team policy and grants again when a key is revoked.
    CREATE FUNCTION team_operator_revoked_notify() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
    BEGIN
      PERFORM pg_notify('gatehouse_team_grants', '');
      PERFORM pg_notify('gatehouse_team_policy', '');
      RETURN NEW;
    END $$;
    CREATE TRIGGER team_operators_revoked AFTER UPDATE OF revoked_at ON team_operators FOR EACH ROW EXECUTE FUNCTION team_operator_revoked_notify();
  `,
} as const;
