// A session's whole story as a waterfall across the view: each call a bar over time from the
// moment it was received to its last event, the steps the host recorded inside it (extraction,
// policy, approval wait, run), a time axis, and the call's outcome at the end of its row. Click a
// bar, or move through the calls with the arrow keys, and its events open beside the waterfall.
// "Replay against policy" runs today's policy over the session's calls.
import { useEffect, useMemo, useRef, type KeyboardEvent } from 'react';
import { useClient } from '../../sync/client-context.ts';
import { axisTicks, buildWaterfall, formatOffset, formatSpan, stepLabel, type CallBar, type Waterfall } from '../../lib/call-waterfall.ts';
import { summarize } from '../../lib/audit-summary.ts';
import { formatDateTime, isoTime } from '../../lib/format.ts';
import { useAuditStore } from '../../stores/audit-store.ts';
import { closeSession, openEvent, replaySession } from '../../sync/audit-actions.ts';
import { ReplayResult } from './replay-result.tsx';
import { JobStatus, useJob } from '../../components/job-progress.tsx';
import { SafeText, safeTitle } from '../../components/safe-text.tsx';
import { InlineError } from '../../components/dialog-actions.tsx';
import { useSecondTick } from '../health/use-second-tick.ts';

/** Events of no call drawn as ticks under the bars; more would be a smear, so the rest are counted. */
const MAX_OTHER_TICKS = 200;

const pct = (v: number) => `${(v * 100).toFixed(4)}%`;

/** The open session's waterfall, built again only when its events change. */
function useWaterfall(): Waterfall | null {
  const events = useAuditStore((s) => s.timeline?.events);
  return useMemo(() => (events && events.length > 0 ? buildWaterfall(events) : null), [events]);
}

/** The call the open event belongs to, if it is one of the waterfall's. */
function useSelectedCall(w: Waterfall | null): CallBar | null {
  const seq = useAuditStore((s) => s.selected?.seq ?? null);
  return useMemo(() => (w && seq !== null ? (w.calls.find((c) => c.events.some((e) => e.seq === seq)) ?? null) : null), [w, seq]);
}

export function SessionTimeline() {
  const client = useClient();
  const timeline = useAuditStore((s) => s.timeline);
  const list = useRef<HTMLUListElement>(null);
  const replayJob = useJob(timeline?.replay?.job);
  const waterfall = useWaterfall();
  const selected = useSelectedCall(waterfall);
  const ready = !!waterfall && !timeline?.loading;
  // Waiting calls say how long they have waited, so the clock ticks while any waits.
  const now = useSecondTick(!!waterfall?.calls.some((c) => c.waiting));

  // Once the session is loaded the arrows move through its calls at once.
  useEffect(() => {
    if (ready) list.current?.focus();
  }, [ready, timeline?.session]);

  useEffect(() => {
    if (selected) list.current?.querySelector(`[data-call="${CSS.escape(selected.call)}"]`)?.scrollIntoView({ block: 'nearest' });
  }, [selected]);

  if (!timeline) return null;
  const { session, events, loading, error, truncated, replay } = timeline;
  const select = (c: CallBar | undefined) => {
    if (c) void openEvent(client, c.events[0]!.seq);
  };

  const onKeyDown = (ev: KeyboardEvent) => {
    if (!waterfall || waterfall.calls.length === 0) return;
    const calls = waterfall.calls;
    const at = selected ? calls.indexOf(selected) : -1;
    let next: number;
    if (ev.key === 'ArrowDown') next = Math.min(calls.length - 1, at + 1);
    else if (ev.key === 'ArrowUp') next = Math.max(0, at - 1);
    else if (ev.key === 'Home') next = 0;
    else if (ev.key === 'End') next = calls.length - 1;
    else return;
    ev.preventDefault();
    select(calls[next]);
  };

  const span = waterfall ? Math.max(1, waterfall.t1 - waterfall.t0) : 1;
  const x = (ts: number) => (waterfall ? (ts - waterfall.t0) / span : 0);
  // Few labels: the track shares the row with the call's name and outcome, and labels must not touch.
  const ticks = waterfall ? axisTicks(waterfall.t1 - waterfall.t0, 4) : [];
  const others = waterfall?.others ?? [];

  return (
    <section
      className="panel audit-timeline"
      data-testid="audit-timeline"
      data-session={session}
      data-count={events.length}
      data-calls={waterfall?.calls.length ?? 0}
      aria-labelledby="audit-timeline-heading"
      aria-busy={loading}
    >
      <h2 id="audit-timeline-heading" className="panel-title">
        Session <span className="mono panel-note">{session}</span>
        {waterfall ? (
          <span className="panel-note">
            {waterfall.calls.length} {waterfall.calls.length === 1 ? 'call' : 'calls'} over {formatSpan(waterfall.t1 - waterfall.t0)}, from{' '}
            <time dateTime={isoTime(waterfall.t0)}>{formatDateTime(waterfall.t0)}</time>
          </span>
        ) : null}
        <button type="button" className="button button-small audit-close" data-testid="audit-timeline-close" onClick={closeSession}>
          Close
        </button>
      </h2>
      <InlineError error={error} prefix="Could not load the session" testId="audit-timeline-error" />
      {loading ? <p className="muted">Loading the session…</p> : null}
      {!loading && !error && events.length === 0 ? <p className="muted">No events recorded for this session.</p> : null}
      {truncated ? <p className="muted">Only the first {events.length} events of this session are shown.</p> : null}
      {waterfall ? (
        <>
          <ul className="wf-legend" aria-label="Steps inside a bar">
            {(Object.keys(stepLabel) as (keyof typeof stepLabel)[]).map((s) => (
              <li key={s}>
                <span className="wf-swatch" data-step={s} aria-hidden="true" /> {stepLabel[s]}
              </li>
            ))}
            <li>
              <span className="wf-swatch wf-swatch-mark" aria-hidden="true" /> decided
            </li>
          </ul>
          <div className="wf">
            <div className="wf-row wf-axis-row" aria-hidden="true">
              <span className="wf-label muted">Call</span>
              <span className="wf-track wf-axis" data-testid="audit-waterfall-axis">
                {ticks.map((t) => (
                  // A label at the very end ends at its tick rather than run past the axis.
                  <span key={t} className="wf-tick" data-testid="audit-waterfall-tick" data-ms={t} style={{ left: pct(t / span), transform: t / span > 0.97 ? 'translateX(-100%)' : undefined }}>
                    {formatOffset(t)}
                  </span>
                ))}
              </span>
              <span className="wf-outcome muted">Outcome</span>
            </div>
            {waterfall.calls.length > 0 ? (
              <ul
                ref={list}
                className="wf-rows"
                role="listbox"
                tabIndex={0}
                data-testid="audit-waterfall"
                aria-label={`Calls of session ${session}, over time: arrows move, the call opens beside`}
                aria-activedescendant={selected ? `wf-call-${selected.events[0]!.seq}` : undefined}
                onKeyDown={onKeyDown}
              >
                {waterfall.calls.map((c) => (
                  <CallRow key={c.call} call={c} x={x} now={now} selected={c === selected} onSelect={() => select(c)} />
                ))}
              </ul>
            ) : (
              <p className="muted">No tool calls in this session.</p>
            )}
            {others.length > 0 ? (
              <div className="wf-row wf-others-row">
                <span className="wf-label muted">Other events</span>
                <span className="wf-track" data-testid="audit-waterfall-others">
                  {others.slice(0, MAX_OTHER_TICKS).map((e) => (
                    <button
                      key={e.seq}
                      type="button"
                      className="wf-other"
                      data-testid="audit-waterfall-other"
                      data-seq={e.seq}
                      style={{ left: pct(x(e.ts)) }}
                      aria-label={`${e.type} at ${formatOffset(e.ts - waterfall.t0)}`}
                      title={safeTitle(`${e.type} ${formatOffset(e.ts - waterfall.t0)}: ${summarize(e)}`)}
                      onClick={() => void openEvent(client, e.seq)}
                    />
                  ))}
                </span>
                <span className="wf-outcome muted">{others.length > MAX_OTHER_TICKS ? `${others.length} (first ${MAX_OTHER_TICKS} shown)` : others.length}</span>
              </div>
            ) : null}
          </div>
          <div className="audit-replay">
            <button type="button" className="button button-small" data-testid="audit-replay" onClick={() => void replaySession(client)} disabled={replay?.loading}>
              {replay?.loading ? 'Replaying…' : 'Replay against policy'}
            </button>
            <span className="muted">Runs today's policy over this session's recorded calls; nothing is changed.</span>
            <JobStatus job={replayJob} note={replay?.note ?? null} testId="audit-replay" />
            {replay?.error ? (
              <p className="inline-error" role="alert" data-testid="audit-replay-error">
                Replay failed: {replay.error}
              </p>
            ) : null}
            {replay?.result ? <ReplayResult result={replay.result} onOpen={(seq) => void openEvent(client, seq)} /> : null}
          </div>
        </>
      ) : null}
    </section>
  );
}

/** "waiting 12.0 s" for a call still waiting, by the local clock; null for a call that is not. */
export function waitingFor(c: CallBar, now: number): string | null {
  return c.waiting ? `waiting ${formatSpan(Math.max(0, now - c.start))}` : null;
}

function CallRow({ call: c, x, now, selected, onSelect }: { call: CallBar; x: (ts: number) => number; now: number; selected: boolean; onSelect: () => void }) {
  const left = x(c.start);
  const width = Math.max(0, x(c.end) - left);
  const within = (ts: number) => (c.end > c.start ? (ts - c.start) / (c.end - c.start) : 0);
  // The row leads with what the call does; the tool and the agent follow.
  const who = [c.tool ?? 'a call', c.agent].filter(Boolean).join(' · ');
  const name = c.subject ? `${c.subject} — ${who}` : who;
  const steps = c.segments.map((s) => `${stepLabel[s.step]} ${formatSpan(s.end - s.start)}`).join(', ');
  const waiting = waitingFor(c, now);
  return (
    <li
      id={`wf-call-${c.events[0]!.seq}`}
      role="option"
      aria-selected={selected}
      aria-label={`${name}: ${waiting ?? `${c.outcome.label}, ${formatSpan(c.end - c.start)}`}${steps ? ` (${steps})` : ''}`}
      className="wf-row wf-call"
      data-testid="audit-waterfall-bar"
      data-call={c.call}
      data-seq={c.events[0]!.seq}
      data-outcome={c.outcome.tone}
      data-start={c.start}
      data-end={c.end}
      onClick={onSelect}
    >
      <span className="wf-label" title={safeTitle(name)}>
        {c.subject ? (
          <>
            <span className="wf-subject mono" data-testid="audit-waterfall-subject">
              <SafeText text={c.subject} />
            </span>{' '}
            <span className="wf-who">
              <SafeText text={who} />
            </span>
          </>
        ) : (
          <SafeText text={who} />
        )}
      </span>
      <span className="wf-track">
        <span className="wf-bar" data-tone={c.outcome.tone} style={{ left: pct(left), width: pct(width) }}>
          {c.segments.map((s) => (
            <span
              key={s.step}
              className="wf-seg"
              data-testid="audit-waterfall-seg"
              data-step={s.step}
              data-start={s.start}
              data-end={s.end}
              style={{ left: pct(within(s.start)), width: pct(within(s.end) - within(s.start)) }}
              title={`${stepLabel[s.step]}: ${formatSpan(s.end - s.start)}`}
            />
          ))}
          {c.decidedAt !== null ? <span className="wf-mark" style={{ left: pct(within(c.decidedAt)) }} title="decided" /> : null}
        </span>
      </span>
      <span className={`wf-outcome decision wf-tone-${c.outcome.tone}`} data-testid="audit-waterfall-outcome" title={waiting ? c.outcome.label : undefined}>
        {waiting ?? c.outcome.label}
      </span>
    </li>
  );
}

/** The steps of the call open beside the waterfall, with when each started and how long it took. */
export function CallSteps() {
  const waterfall = useWaterfall();
  const c = useSelectedCall(waterfall);
  const now = useSecondTick(!!c?.waiting);
  if (!waterfall) return null;
  if (!c) {
    return (
      <section className="panel audit-call-steps" aria-label="The selected call">
        <p className="muted">Select a call in the waterfall (click, or the arrow keys) to see its steps and events here.</p>
      </section>
    );
  }
  const rel = (ts: number) => formatOffset(ts - waterfall.t0);
  return (
    <section className="panel audit-call-steps" data-testid="audit-call-steps" data-call={c.call} aria-labelledby="audit-call-steps-heading">
      <h2 id="audit-call-steps-heading" className="panel-title">
        Call <span className="mono panel-note">{c.call}</span>
      </h2>
      {c.subject ? (
        <p className="wf-call-subject mono selectable">
          <SafeText text={c.subject} />
        </p>
      ) : null}
      <dl className="facts">
        <dt>Outcome</dt>
        <dd>
          <span className={`decision wf-tone-${c.outcome.tone}`} data-testid="audit-call-outcome">
            {c.outcome.label}
          </span>
        </dd>
        <dt>Received</dt>
        <dd className="mono">{rel(c.start)}</dd>
        {c.segments.map((s) => (
          <StepFact key={s.step} label={stepLabel[s.step]} value={`${formatSpan(s.end - s.start)} (from ${rel(s.start)})`} step={s.step} ms={s.end - s.start} />
        ))}
        {c.decidedAt !== null ? (
          <>
            <dt>Decided</dt>
            <dd className="mono">{rel(c.decidedAt)}</dd>
          </>
        ) : null}
        {c.finishedAt !== null ? (
          <>
            <dt>Finished</dt>
            <dd className="mono">{rel(c.finishedAt)}</dd>
          </>
        ) : null}
        <dt>{c.waiting ? 'Waiting' : 'Total'}</dt>
        <dd className="mono" data-testid="audit-call-total">
          {formatSpan(c.waiting ? Math.max(0, now - c.start) : c.end - c.start)}
        </dd>
      </dl>
    </section>
  );
}

function StepFact({ label, value, step, ms }: { label: string; value: string; step: string; ms: number }) {
  return (
    <>
      <dt>
        <span className="wf-swatch" data-step={step} aria-hidden="true" /> {label}
      </dt>
      <dd className="mono" data-testid="audit-call-step" data-step={step} data-ms={ms}>
        {value}
      </dd>
    </>
  );
}
