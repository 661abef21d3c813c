// One step of the Getting Started panel: a number, a title, done or not (as the host sees it),
// and what to do.
import type { ReactNode } from 'react';
import type { StepId } from '../../stores/getting-started-store.ts';

export function StepCard({ step, n, title, done, optional, children }: { step: StepId; n: number; title: string; done: boolean; optional?: boolean; children: ReactNode }) {
  return (
    <li className="panel start-step" data-testid="start-step" data-step={step} data-done={done ? 'true' : 'false'} aria-labelledby={`start-step-${step}`}>
      <div className="start-step-head">
        <span className="start-step-number" aria-hidden="true">
          {done ? '✓' : n}
        </span>
        <h2 id={`start-step-${step}`} className="start-step-title">
          {title}
        </h2>
        <span className={`badge start-step-state${done ? ' badge-verified' : ''}`} data-testid="start-step-state">
          {done ? 'Done' : optional ? 'Optional' : 'To do'}
        </span>
      </div>
      <div className="start-step-body">{children}</div>
    </li>
  );
}
