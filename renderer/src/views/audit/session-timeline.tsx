// A session's whole story in order, replayed step by step: the scrubber (a range input with
// play/pause; left and right arrows step) shows the events up to its position and the current
// step's detail. "Replay against policy" runs today's policy over the session's calls.
import { useEffect, useRef, type KeyboardEvent } from 'react';
import { useClient } from '../../app/client-context.ts';
import { agentTool, decisionOf, deciderText, stepKind, summarize } from '../../lib/audit-summary.ts';
import { formatEventTime, isoTime } from '../../lib/format.ts';
import { useAuditStore } from '../../stores/audit-store.ts';
import { closeSession, openEvent, replaySession, setPlaying, setStep } from '../../sync/audit-actions.ts';
import { ReplayResult } from './replay-result.tsx';
import { JobStatus, useJob } from '../../components/job-progress.tsx';
import { SafeText } from '../../components/safe-text.tsx';

/** How long each step stays on screen while playing. */
const PLAY_STEP_MS = 700;

export function SessionTimeline() {
  const client = useClient();
  const timeline = useAuditStore((s) => s.timeline);
  const current = useRef<HTMLLIElement>(null);
  const scrubber = useRef<HTMLInputElement>(null);
  const playing = timeline?.playing ?? false;
  const ready = !!timeline && !timeline.loading && timeline.events.length > 0;
  const replayJob = useJob(timeline?.replay?.job);

  // Once the session is loaded the arrows step through it at once.
  useEffect(() => {
    if (ready) scrubber.current?.focus();
  }, [ready, timeline?.session]);

  useEffect(() => {
    if (!playing) return;
    const timer = setInterval(() => {
      const t = useAuditStore.getState().timeline;
      if (!t || t.step >= t.events.length - 1) setPlaying(false);
      else setStep(t.step + 1);
    }, PLAY_STEP_MS);
    return () => clearInterval(timer);
  }, [playing]);

  useEffect(() => {
    current.current?.scrollIntoView({ block: 'nearest' });
  }, [timeline?.step]);

  if (!timeline) return null;
  const { session, events, step, loading, error, truncated, replay } = timeline;
  const shown = events.slice(0, step + 1);
  const now = Date.now();
  const at = events[step];
  const t0 = events[0]?.ts ?? 0;

  const onKeyDown = (ev: KeyboardEvent) => {
    // The range input steps by itself; elsewhere in the timeline the arrows do the same.
    if ((ev.target as HTMLElement).tagName === 'INPUT') return;
    if (ev.key === 'ArrowRight') setStep(step + 1);
    else if (ev.key === 'ArrowLeft') setStep(step - 1);
    else if (ev.key === ' ') setPlaying(!playing);
    else return;
    ev.preventDefault();
  };

  return (
    <section
      className="panel audit-timeline"
      data-testid="audit-timeline"
      data-session={session}
      data-step={step}
      data-count={events.length}
      data-playing={playing}
      aria-labelledby="audit-timeline-heading"
      aria-busy={loading}
      tabIndex={-1}
      onKeyDown={onKeyDown}
    >
      <h2 id="audit-timeline-heading" className="panel-title">
        Session <span className="mono panel-note">{session}</span>
        <button type="button" className="button button-small audit-close" data-testid="audit-timeline-close" onClick={closeSession}>
          Close
        </button>
      </h2>
      {error ? (
        <p className="inline-error" role="alert" data-testid="audit-timeline-error">
          Could not load the session: {error}
        </p>
      ) : null}
      {loading ? <p className="muted">Loading the session…</p> : null}
      {!loading && !error && events.length === 0 ? <p className="muted">No events recorded for this session.</p> : null}
      {events.length > 0 ? (
        <>
          <div className="audit-scrubber">
            <button
              type="button"
              className="button button-small"
              data-testid="audit-play"
              aria-pressed={playing}
              onClick={() => setPlaying(!playing)}
              title="Play the session step by step (Space)"
            >
              {playing ? 'Pause' : 'Play'}
            </button>
            <input
              ref={scrubber}
              type="range"
              className="audit-scrubber-range"
              data-testid="audit-scrubber"
              min={0}
              max={events.length - 1}
              step={1}
              value={step}
              aria-label="Step through the session"
              aria-valuetext={`Step ${step + 1} of ${events.length}`}
              onChange={(e) => setStep(Number(e.target.value))}
            />
            <span className="mono audit-step-count" data-testid="audit-step-count">
              {step + 1} / {events.length}
            </span>
          </div>
          {truncated ? <p className="muted">Only the first {events.length} events of this session are shown.</p> : null}
          <ol className="audit-steps" aria-label="Timeline up to the scrubber">
            {shown.map((e, i) => {
              const decision = decisionOf(e);
              return (
                <li
                  key={e.seq}
                  ref={i === step ? current : undefined}
                  className="audit-step"
                  data-testid="audit-timeline-step"
                  data-seq={e.seq}
                  data-kind={stepKind(e.type)}
                  data-current={i === step}
                >
                  <time className="mono" dateTime={isoTime(e.ts)} title={formatEventTime(e.ts, now)}>
                    +{((e.ts - t0) / 1000).toFixed(3)} s
                  </time>
                  <span className="audit-step-kind">{stepKind(e.type)}</span>
                  <button type="button" className="link-button mono" onClick={() => void openEvent(client, e.seq)} title="Open this event">
                    <SafeText text={e.type} />
                  </button>
                  {decision ? (
                    <span className="decision" data-decision={decision}>
                      <SafeText text={decision} />
                    </span>
                  ) : null}
                  <span className="audit-step-summary">
                    <SafeText text={summarize(e)} />
                  </span>
                </li>
              );
            })}
          </ol>
          {at ? (
            <div className="audit-step-detail" data-testid="audit-step-detail" data-seq={at.seq}>
              <h3 className="audit-subtitle">
                Step {step + 1}: <span className="mono"><SafeText text={at.type} /></span> by <SafeText text={at.actor} />
                {agentTool(at) ? <span className="muted"> — <SafeText text={agentTool(at)} /></span> : null}
              </h3>
              {deciderText((at.payload as Record<string, unknown> | null)?.decider) ? (
                <p>Decided by <SafeText text={deciderText((at.payload as Record<string, unknown>).decider) ?? ''} /></p>
              ) : null}
              <pre className="audit-json mono">
                <SafeText text={JSON.stringify(at.payload, null, 2)} multiline />
              </pre>
            </div>
          ) : null}
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
