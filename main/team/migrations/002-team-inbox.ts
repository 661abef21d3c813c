// Team migration 2, as shipped: the team inbox. Asks members raised, the one decision each may
// get, and the operators whose signatures members honour.
// FROZEN: a team database at version 2 was made by exactly this SQL (after 001). Change the schema
// with a new migration file, never by editing this one (test/main/team/team-schema.test.ts holds its hash).
export const TEAM_MIGRATION_002 = {
  version: 2,
  name: 'team inbox: asks, first-wins signed decisions, operators',
  sql: `
    -- Operators by name, with the ed25519 public key their decisions are checked against. The
    -- private key never leaves the operator's own Gatehouse home.
    CREATE TABLE team_operators (
      name       text        PRIMARY KEY,
      public_key text        NOT NULL,
      console    text        NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    -- An ask a member raised, as its operators are shown it. The member's local inbox stays the
    -- truth: this row is closed (state) when the local item closes, whatever closed it.
    CREATE TABLE team_asks (
      member      text        NOT NULL,
      approval_id text        NOT NULL,
      call_id     text        NOT NULL,
      agent       text        NOT NULL,
      session     text        NOT NULL,
      tool        text        NOT NULL,
      -- Canonical JSON of the arguments; args_hash is its SHA-256, which a decision is bound to.
      arguments   text        NOT NULL,
      args_hash   text        NOT NULL,
      reason      text        NOT NULL,
      asked_at    bigint      NOT NULL,
      deadline    bigint      NOT NULL,
      state       text        NOT NULL DEFAULT 'pending',
      closed_at   timestamptz,
      PRIMARY KEY (member, approval_id)
    );
    CREATE INDEX team_asks_pending ON team_asks (asked_at) WHERE state = 'pending';
    -- At most one decision per ask (the primary key): the first insert wins, a second one at the
    -- same moment finds the row taken. The member honours it only if the signature verifies.
    CREATE TABLE team_decisions (
      member      text        NOT NULL,
      approval_id text        NOT NULL,
      call_id     text        NOT NULL,
      args_hash   text        NOT NULL,
      decision    text        NOT NULL CHECK (decision IN ('approved', 'denied')),
      reason      text        NOT NULL,
      operator    text        NOT NULL,
      console     text        NOT NULL,
      decided_at  bigint      NOT NULL,
      signature   text        NOT NULL,
      stored_at   timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (member, approval_id)
    );
    -- Members LISTEN for decisions and consoles for asks; the trigger announces every insert, so
    -- nothing has to poll (and a writer cannot forget to).
    CREATE FUNCTION team_decided_notify() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('gatehouse_team_decided', json_build_object('member', NEW.member, 'approval', NEW.approval_id)::text);
      RETURN NEW;
    END $$;
    CREATE TRIGGER team_decisions_notify AFTER INSERT ON team_decisions FOR EACH ROW EXECUTE FUNCTION team_decided_notify();
    CREATE FUNCTION team_asks_notify() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('gatehouse_team_asks', json_build_object('member', NEW.member, 'approval', NEW.approval_id, 'state', NEW.state)::text);
      RETURN NEW;
    END $$;
    CREATE TRIGGER team_asks_notify AFTER INSERT OR UPDATE OF state ON team_asks FOR EACH ROW EXECUTE FUNCTION team_asks_notify();
  `,
} as const;
