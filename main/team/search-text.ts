// The text of a shipped event that team search finds: type, actor and every string value of the
// payload, as the local index (audit-index.ts ftsText) takes them, cut into words at every character
// that is not a letter, digit or underscore, as FTS5's unicode61 tokenizer cuts them (PostgreSQL's
// parser would keep "agent/session-1" or "/tmp/a.txt" whole, so no word in it could be found).
// The query is cut the same way (searchQuery). Computed by the shipper, not by
// PostgreSQL from the payload: a payload PostgreSQL's jsonb refuses (a \u0000 in a string) or a
// text past tsvector's 1 MB limit would otherwise fail its insert, and stop the member's shipping.
export const SEARCH_TEXT_MAX = 200_000;

export function searchText(type: string, actor: string, payloadJson: string): string {
  return searchTextOf(type, actor, parsePayload(payloadJson));
}

/** The chained payload parsed, or undefined: should it not parse, its type and actor are still searchable. */
export function parsePayload(payloadJson: string): unknown {
  try {
    return JSON.parse(payloadJson) as unknown;
  } catch {
    return undefined;
  }
}

/** searchText of a payload the caller parsed already (the shipper parses each once, for its facets too). */
export function searchTextOf(type: string, actor: string, payload: unknown): string {
  const parts = [type, actor];
  let size = type.length + actor.length;
  const walk = (v: unknown): void => {
    if (size >= SEARCH_TEXT_MAX) return;
    if (typeof v === 'string') {
      parts.push(v);
      size += v.length + 1;
    } else if (Array.isArray(v)) {
      for (const x of v) walk(x);
    } else if (v !== null && typeof v === 'object') {
      for (const x of Object.values(v)) walk(x);
    }
  };
  walk(payload);
  return words(parts.join(' ').slice(0, SEARCH_TEXT_MAX));
}

/** Letters, digits and underscores only (which also drops NUL, which PostgreSQL text cannot hold). */
function words(text: string): string {
  return text.replace(/[^\p{L}\p{N}_]+/gu, ' ').trim();
}

/**
 * A web-search query (words, "a phrase", OR, -word) cut into words as the indexed text was: a
 * phrase keeps its words in order ("rm -rf" finds "rm -rf", "prod/app.yaml" finds the path), a
 * leading - outside quotes still excludes a word, OR stays an operator.
 */
export function searchQuery(query: string): string {
  return query
    .split('"')
    .map((part, i) => (i % 2 === 1 ? words(part) : ` ${part.split(/\s+/).map((w) => (w.startsWith('-') ? `-${words(w.slice(1))}` : words(w))).filter((w) => w !== '' && w !== '-').join(' ')} `))
    .join('"')
    .replace(/\s+/g, ' ')
    .trim();
}
