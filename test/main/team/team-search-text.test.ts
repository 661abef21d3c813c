// The words team search indexes and looks for (main/team/search-text.ts): cut as FTS5's unicode61
// cuts them locally, so a word inside a session name or a path is found, and a payload PostgreSQL
// could not hold (a NUL) or index (past tsvector's limit) never stops a member's shipping.
import { describe, expect, it } from 'vitest';
import { SEARCH_TEXT_MAX, searchQuery, searchText } from '../../../main/team/search-text.js';

describe('team search text', () => {
  it('indexes the type, the actor and every string of the payload as words, never a NUL, within the limit', () => {
    expect(searchText('call.received', 'agent:default', JSON.stringify({ session: 'default/quartzfalcon-review', n: 3, args: { path: '/tmp/a.txt', list: ['x\u0000y'] } }))).toBe('call received agent default default quartzfalcon review tmp a txt x y');
    expect(searchText('t', 'a', JSON.stringify({ big: 'w '.repeat(SEARCH_TEXT_MAX) })).length).toBeLessThanOrEqual(SEARCH_TEXT_MAX);
  });

  it('cuts the query the same way, keeping phrases, OR and a leading minus', () => {
    expect(searchQuery('quartzfalcon')).toBe('quartzfalcon');
    expect(searchQuery('"rm -rf" OR deploy -prod/app.yaml')).toBe('"rm rf" OR deploy -prod app yaml');
    expect(searchQuery('"prod/app.yaml"')).toBe('"prod app yaml"');
    expect(searchQuery('  ')).toBe('');
  });
});
