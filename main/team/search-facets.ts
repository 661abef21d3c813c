// The facets team search filters on (--member, --agent, --session, --plugin, --decision), as
// lexemes of each shipped event's tsvector ('member=laptop-ana', 'decision=deny', …): a filter
// is ANDed into the text query, and the one GIN index answers words and facets together. No
// search word can spell a facet lexeme: words are cut at every '=' (search-text.ts).
// The lexemes hold exactly what the payload test of team search held before migration 005:
//  - member:   the member that shipped the event
//  - agent:    the payload's `agent`, and the actor's name when the actor is `agent:NAME`
//  - session:  the payload's `session`
//  - plugin:   the payload's `plugin`, and for a plugin.* event the payload's `name`
//  - decision: the payload's `decision`
// each only when it is a string. Migration 005 computes the same list in SQL for rows shipped
// before it (team_facets_005): the two must change together, or a filter would find old and new
// rows differently. A payload PostgreSQL's jsonb refuses (a NUL or a lone surrogate in a string,
// which the old payload test failed on) gets only its member's and its actor's facets, as
// migration 005 does. A facet over FACET_MAX_BYTES is left out: a lexeme holds 2,047 bytes, and
// array_to_tsvector does not check (a longer one is stored corrupt).

import { UsageError } from '../core/usage-error.js';

export const FACET_MAX_BYTES = 2000;

export type FacetFilter = { member?: string; agent?: string; session?: string; plugin?: string; decision?: string };

const FACETS = ['member', 'agent', 'session', 'plugin', 'decision'] as const;

/** What jsonb refuses, escaped in the canonical JSON: a NUL, or half of a surrogate pair. */
const REFUSED_ESCAPE = /\\u(0000|d[89a-f])/i;
/** In a parsed string: a NUL, or a surrogate that is not half of a pair (the u flag pairs them). */
const REFUSED_CHAR = /\0|[\uD800-\uDFFF]/u;

function jsonbRefuses(v: unknown): boolean {
  if (typeof v === 'string') return REFUSED_CHAR.test(v);
  if (Array.isArray(v)) return v.some(jsonbRefuses);
  if (v !== null && typeof v === 'object') return Object.entries(v).some(([k, x]) => REFUSED_CHAR.test(k) || jsonbRefuses(x));
  return false;
}

const fits = (tag: string) => Buffer.byteLength(tag) <= FACET_MAX_BYTES;

/** The facet lexemes of one event; `payload` is `payloadJson` parsed (undefined when it does not parse). */
export function eventFacets(member: string, type: string, actor: string, payloadJson: string, payload: unknown): string[] {
  const readable = payload !== null && typeof payload === 'object' && !Array.isArray(payload) && !(REFUSED_ESCAPE.test(payloadJson) && jsonbRefuses(payload));
  const p = readable ? (payload as Record<string, unknown>) : {};
  const tag = (facet: string, v: unknown) => (typeof v === 'string' ? [`${facet}=${v}`] : []);
  return [
    `member=${member}`,
    ...tag('agent', p.agent),
    ...(actor.startsWith('agent:') ? [`agent=${actor.slice(6)}`] : []),
    ...tag('session', p.session),
    ...tag('plugin', p.plugin),
    ...(type.startsWith('plugin.') ? tag('plugin', p.name) : []),
    ...tag('decision', p.decision),
  ].filter(fits);
}

/**
 * The tsquery (PostgreSQL's text form) every facet of `f` must match, or null when `f` names none.
 * Throws when a value is too long to have been indexed.
 */
export function facetQuery(f: FacetFilter): string | null {
  const tags = FACETS.flatMap((k) => (f[k] ? [`${k}=${f[k]}`] : []));
  const long = tags.find((t) => !fits(t));
  if (long !== undefined) throw new UsageError(`The --${long.slice(0, long.indexOf('='))} value is longer than team search indexes (${FACET_MAX_BYTES} bytes): give a shorter one.`);
  // Each a quoted lexeme: inside quotes only a quote (doubled) and a backslash (escaped) are special.
  return tags.length ? tags.map((t) => `'${t.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`).join(' & ') : null;
}

/** `tags` as a PostgreSQL array literal, for a text column cast to text[] (one per row of a batch). */
export function pgTextArray(tags: readonly string[]): string {
  return `{${tags.map((t) => `"${t.replace(/[\\"]/g, '\\$&')}"`).join(',')}}`;
}
