// The search box (FTS5 syntax) and the facets. The query and the text facets apply on Enter;
// the time range, decision, severity and event type apply as they are picked.
import { useEffect, useId, useMemo, useState, type FormEvent } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useClient } from '../../sync/client-context.ts';
import { pluginOf } from '../../lib/audit-summary.ts';
import { emptyFilter, timePresets, useAuditStore, type AuditFilter, type TimePreset } from '../../stores/audit-store.ts';
import { FilterChips, type FilterChip } from '../../components/filter-chips.tsx';
import { runSearch, sessionOf } from '../../sync/audit-actions.ts';
import { useTeamStore } from '../../stores/team-store.ts';

const decisions = ['allow', 'deny', 'ask', 'expired', 'approved', 'denied'] as const;
/** Rule severities (policy.yaml); rule.matched events carry them. */
const severities = ['critical', 'high', 'warning', 'info'] as const;
/** The event types an operator filters by most; types seen in the results are added. */
const commonTypes = [
  'call.received',
  'call.extracted',
  'rule.matched',
  'checker.verdict',
  'call.decided',
  'call.result',
  'approval.requested',
  'approval.decided',
  'approval.expired',
  'grant.created',
  'grant.revoked',
  'execution.started',
  'execution.ended',
  'pty.started',
  'pty.transcript',
  'pty.exited',
  'pty.take-over',
  'plugin.enabled',
  'plugin.quarantined',
  'settings.changed',
  'policy.changed',
  'host.started',
  'host.stopped',
];

/** datetime-local wants local time without a zone. */
function toLocalInput(ms: number | null): string {
  if (ms === null) return '';
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 16);
}
function fromLocalInput(v: string): number | null {
  if (!v) return null;
  const ms = new Date(v).getTime();
  return Number.isNaN(ms) ? null : ms;
}

export function SearchBar() {
  const client = useClient();
  const { filter, searchError, events, searchUnavailable } = useAuditStore(
    useShallow((s) => ({ filter: s.filter, searchError: s.searchError, events: s.events, searchUnavailable: s.searchUnavailable })),
  );
  const [query, setQuery] = useState(filter.query);
  const [agent, setAgent] = useState(filter.agent);
  const [session, setSession] = useState(filter.session);
  const [plugin, setPlugin] = useState(filter.plugin);
  const [member, setMember] = useState(filter.member);
  const ids = { hint: useId(), error: useId(), agents: useId(), sessions: useId(), plugins: useId(), members: useId() };
  // The scope switch is there in team mode (and while the team scope is on, to leave it).
  const inTeam = useTeamStore((s) => s.link !== null);
  const team = filter.scope === 'team';

  // A filter applied from elsewhere shows up in the fields; a refresh of the same filter (new
  // events while the operator types) must not overwrite what is being typed.
  useEffect(() => {
    setQuery(filter.query);
    setAgent(filter.agent);
    setSession(filter.session);
    setPlugin(filter.plugin);
    setMember(filter.member);
  }, [filter.query, filter.agent, filter.session, filter.plugin, filter.member]);

  const seen = useMemo(() => {
    const agents = new Set<string>();
    const sessions = new Set<string>();
    const plugins = new Set<string>();
    const members = new Set<string>();
    const types = new Set<string>(commonTypes);
    for (const e of events.slice(0, 1000)) {
      const p = e.payload as Record<string, unknown> | null;
      if (p && typeof p.agent === 'string') agents.add(p.agent);
      const s = sessionOf(e);
      if (s) sessions.add(s);
      const pl = pluginOf(e);
      if (pl) plugins.add(pl);
      if (e.member) members.add(e.member);
      types.add(e.type);
    }
    return { agents: [...agents].sort(), sessions: [...sessions].sort(), plugins: [...plugins].sort(), members: [...members].sort(), types: [...types].sort() };
  }, [events]);

  const submit = (ev: FormEvent) => {
    ev.preventDefault();
    void runSearch(client, { query, agent, session, plugin, member: team ? member : '' });
  };
  const disabled = !!searchUnavailable;
  // Every filter in force as a chip, those carried over from a link (an agent, a session) included.
  const CHIP_KEYS: (keyof AuditFilter)[] = ['query', 'time', 'agent', 'session', 'plugin', 'decision', 'severity', 'type', 'member'];
  const chips: FilterChip[] = CHIP_KEYS.filter((k) => filter[k] !== emptyFilter[k]).map((k) => ({
    key: k,
    label: k === 'query' ? 'search' : k,
    value: String(filter[k]),
    onRemove: () => void runSearch(client, k === 'time' ? { time: 'all', customFrom: null, customTo: null } : { [k]: emptyFilter[k] }),
  }));

  return (
    <form className="panel audit-search" role="search" onSubmit={submit} aria-label="Search the audit log">
      {inTeam || team ? (
        <div className="audit-scope" role="group" aria-label="Where to search" data-testid="audit-scope" data-scope={filter.scope}>
          <button type="button" className="button button-small" data-testid="audit-scope-local" aria-pressed={!team} onClick={() => void runSearch(client, { scope: 'local', member: '' })}>
            Local
          </button>
          <button
            type="button"
            className="button button-small"
            data-testid="audit-scope-team"
            aria-pressed={team}
            title="Every member's events in the team database, as gatehouse audit search --team"
            // The severity facet is not in the team database yet: it is cleared rather than ignored.
            onClick={() => void runSearch(client, { scope: 'team', severity: '' })}
          >
            Team
          </button>
          <span className="muted audit-scope-note">{team ? "every member's events, from the team database" : "this host's own log"}</span>
        </div>
      ) : null}
      <div className="audit-search-row">
        <input
          type="search"
          className="input audit-query mono"
          data-testid="audit-search"
          placeholder={team ? 'Search the team: words, "exact phrase", OR, -word' : 'Search: rm AND tmp, "exact phrase", prefix*'}
          aria-label="Search the audit log (FTS syntax)"
          aria-describedby={searchError ? `${ids.hint} ${ids.error}` : ids.hint}
          aria-invalid={searchError ? true : undefined}
          value={query}
          disabled={disabled}
          onChange={(e) => setQuery(e.target.value)}
        />
        <button type="submit" className="button" data-testid="audit-search-submit" disabled={disabled}>
          Search
        </button>
      </div>
      <p id={ids.hint} className="audit-hint" data-testid="audit-search-hint">
        {team ? (
          <>
            Words match every member's tool names, arguments, reasons and outputs. <code>"a phrase"</code>, <code>OR</code>, <code>-word</code>; no prefix search or severity in the team scope yet; press Enter to search.
          </>
        ) : (
          <>
            Words match tool names, arguments, reasons, outputs and transcripts. <code>AND</code>, <code>OR</code>, <code>NOT</code>, <code>"a phrase"</code>, <code>pre*</code>; press Enter to search.
          </>
        )}
      </p>
      {searchError ? (
        <p id={ids.error} className="inline-error" role="alert" data-testid="audit-search-error">
          {searchError}
        </p>
      ) : null}
      <div className="audit-facets">
        <label className="facet">
          <span>Time</span>
          <select
            className="input"
            data-testid="audit-facet-time"
            value={filter.time}
            disabled={disabled}
            onChange={(e) => void runSearch(client, { time: e.target.value as TimePreset })}
          >
            {timePresets.map((p) => (
              <option key={p.id} value={p.id}>
                {p.label}
              </option>
            ))}
          </select>
        </label>
        {filter.time === 'custom' ? (
          <>
            <DateFacet label="From" testId="audit-facet-from" value={filter.customFrom} onChange={(v) => void runSearch(client, { customFrom: v })} />
            <DateFacet label="To" testId="audit-facet-to" value={filter.customTo} onChange={(v) => void runSearch(client, { customTo: v })} />
          </>
        ) : null}
        {team ? <TextFacet label="Member" testId="audit-facet-member" mono listId={ids.members} seen={seen.members} value={member} disabled={disabled} onChange={setMember} /> : null}
        <TextFacet label="Agent" testId="audit-facet-agent" listId={ids.agents} seen={seen.agents} value={agent} disabled={disabled} onChange={setAgent} />
        <TextFacet label="Session" testId="audit-facet-session" mono listId={ids.sessions} seen={seen.sessions} value={session} disabled={disabled} onChange={setSession} />
        <TextFacet label="Plugin" testId="audit-facet-plugin" listId={ids.plugins} seen={seen.plugins} value={plugin} disabled={disabled} onChange={setPlugin} />
        <SelectFacet label="Decision" testId="audit-facet-decision" value={filter.decision} options={decisions} disabled={disabled} onChange={(v) => void runSearch(client, { decision: v })} />
        {team ? null : <SelectFacet label="Severity" testId="audit-facet-severity" value={filter.severity} options={severities} disabled={disabled} onChange={(v) => void runSearch(client, { severity: v })} />}
        <SelectFacet label="Event type" testId="audit-facet-type" value={filter.type} options={seen.types} disabled={disabled} onChange={(v) => void runSearch(client, { type: v })} />
        {/* Enter in a text facet submits the form; this keeps Enter working with no visible button per field. */}
        <button type="submit" hidden tabIndex={-1} aria-hidden="true" />
      </div>
      {/* Clearing the filters keeps the scope: it is where to search, not what. */}
      <FilterChips chips={chips} onClearAll={() => void runSearch(client, { ...emptyFilter, scope: filter.scope })} testId="audit-filter-chips" />
    </form>
  );
}

// The facets typed into (agent, session, plugin) offer the values already seen, and "any" when empty.
function TextFacet({ label, testId, mono, listId, seen, value, disabled, onChange }: { label: string; testId: string; mono?: boolean; listId: string; seen: readonly string[]; value: string; disabled: boolean; onChange(v: string): void }) {
  return (
    <label className="facet">
      <span>{label}</span>
      <input className={mono ? 'input mono' : 'input'} list={listId} data-testid={testId} value={value} disabled={disabled} onChange={(e) => onChange(e.target.value)} placeholder="any" />
      <datalist id={listId}>{seen.map((a) => <option key={a} value={a} />)}</datalist>
    </label>
  );
}

// The facets picked from a list (decision, severity, event type): "any" first, then each value as it is.
function SelectFacet({ label, testId, value, options, disabled, onChange }: { label: string; testId: string; value: string; options: readonly string[]; disabled: boolean; onChange(v: string): void }) {
  return (
    <label className="facet">
      <span>{label}</span>
      <select className="input" data-testid={testId} value={value} disabled={disabled} onChange={(e) => onChange(e.target.value)}>
        <option value="">any</option>
        {options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    </label>
  );
}

// The custom range's ends: local date and time on screen, the filter's own value underneath.
function DateFacet({ label, testId, value, onChange }: { label: string; testId: string; value: number | null; onChange(v: number | null): void }) {
  return (
    <label className="facet">
      <span>{label}</span>
      <input type="datetime-local" className="input" data-testid={testId} value={toLocalInput(value)} onChange={(e) => onChange(fromLocalInput(e.target.value))} />
    </label>
  );
}
