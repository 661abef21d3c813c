// Team migration 5, as shipped: team search's facets in its index. The agent, session, plugin and
// decision facets were read from each row's payload (payload::jsonb ->> …) while the search ran,
// and the member through the primary key: a word with the member and decision facets combined
// three large bitmaps and parsed JSON (the 358 ms p95 of docs/team.md). Now each row's tsvector
// also holds its facets as lexemes ('member=laptop-ana', 'decision=deny', …), which no search word
// can spell (the words are cut at '='), so the one GIN index answers words and facets together
// (`search @@ 'lint' & 'member=…' & 'decision=deny'`), with PostgreSQL's own types only.
// Rows shipped from now on get the lexemes from the shipper (main/team/search-facets.ts, which
// team_facets_005 mirrors); rows already here get them in this migration, in one rewrite of the
// table (ALTER COLUMN … TYPE … USING), the GIN index rebuilt once.
// A payload jsonb refuses (a \u0000 or a lone surrogate escaped in it; the old query failed on
// it) gets only its member's and its actor's facets, as the shipper does; a facet over 2,000 bytes
// is left out (a lexeme holds 2,047 at most).
// FROZEN: a team database at version 5 was made by exactly this SQL (after 001-004). Change the
// schema with a new migration file, never by editing this one (test/main/team/team-schema.test.ts
// holds its hash).
export const TEAM_MIGRATION_005 = {
  version: 5,
  name: "team search's facets as lexemes of each event's tsvector",
  sql: `
    CREATE FUNCTION team_facets_005(member text, type text, actor text, payload text) RETURNS text[] LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
    DECLARE
      p jsonb;
    BEGIN
      -- Only a payload holding such an escape pays for the exception block (a subtransaction).
      IF payload ~* '\\\\u(0000|d[89a-f])' THEN
        BEGIN
          p := payload::jsonb;
        EXCEPTION WHEN others THEN
          p := NULL;
        END;
      ELSE
        p := payload::jsonb;
      END IF;
      IF jsonb_typeof(p) IS DISTINCT FROM 'object' THEN
        p := NULL;
      END IF;
      RETURN ARRAY(SELECT t FROM unnest(ARRAY[
        'member=' || member,
        CASE WHEN jsonb_typeof(p -> 'agent') = 'string' THEN 'agent=' || (p ->> 'agent') END,
        CASE WHEN actor LIKE 'agent:%' THEN 'agent=' || substr(actor, 7) END,
        CASE WHEN jsonb_typeof(p -> 'session') = 'string' THEN 'session=' || (p ->> 'session') END,
        CASE WHEN jsonb_typeof(p -> 'plugin') = 'string' THEN 'plugin=' || (p ->> 'plugin') END,
        CASE WHEN type LIKE 'plugin.%' AND jsonb_typeof(p -> 'name') = 'string' THEN 'plugin=' || (p ->> 'name') END,
        CASE WHEN jsonb_typeof(p -> 'decision') = 'string' THEN 'decision=' || (p ->> 'decision') END
      ]) AS t WHERE t IS NOT NULL AND octet_length(t) <= 2000);
    END $$;
    ALTER TABLE team_events ALTER COLUMN search TYPE tsvector USING search || array_to_tsvector(team_facets_005(member, type, actor, payload));
    DROP FUNCTION team_facets_005(text, text, text, text);
  `,
} as const;
