// Team migration 1, as shipped: members and the events they ship.
// FROZEN: a team database at version 1 was made by exactly this SQL. Change the schema with a new
// migration file, never by editing this one (test/main/team/team-schema.test.ts holds its hash).
export const TEAM_MIGRATION_001 = {
  version: 1,
  name: 'members, shipped events with their chain and search text, forks',
  sql: `
    CREATE TABLE team_members (
      name           text        PRIMARY KEY,
      joined_at      timestamptz NOT NULL DEFAULT now(),
      -- The shipper's last contact, and how far the member's own log had got then: lag and
      -- members that stopped shipping are read from these.
      last_seen_at   timestamptz NOT NULL DEFAULT now(),
      local_head_seq bigint      NOT NULL DEFAULT 0,
      -- The chain head as of the member's last shipped batch, written in the same transaction as
      -- its rows: verify sees rows deleted from the tail, which the chain alone cannot.
      shipped_seq    bigint      NOT NULL DEFAULT 0,
      shipped_hash   text,
      shipped_at     timestamptz,
      version        text
    );
    CREATE TABLE team_events (
      member     text        NOT NULL REFERENCES team_members(name),
      seq        bigint      NOT NULL,
      ts         bigint      NOT NULL,
      type       text        NOT NULL,
      actor      text        NOT NULL,
      -- The payload's canonical JSON exactly as the member chained it (text, not jsonb: jsonb
      -- reorders keys and rewrites numbers, and the hash is over these bytes).
      payload    text        NOT NULL,
      prev_hash  text        NOT NULL,
      hash       text        NOT NULL,
      shipped_at timestamptz NOT NULL DEFAULT now(),
      search     tsvector    NOT NULL,
      PRIMARY KEY (member, seq)
    );
    CREATE INDEX team_events_search ON team_events USING gin (search);
    CREATE INDEX team_events_ts ON team_events (ts);
    -- A member offered a row at a seq it had already shipped with another hash: two hosts under one
    -- name, or a log restored from an old copy. Kept here, since the insert itself keeps the first.
    CREATE TABLE team_forks (
      member       text        NOT NULL,
      seq          bigint      NOT NULL,
      stored_hash  text        NOT NULL,
      offered_hash text        NOT NULL,
      seen_at      timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (member, seq, offered_hash)
    );
  `,
} as const;
