// The frame every view shares: its test id, its <h1>, a toolbar, and focus on keyboard switch.
import { useEffect, useId, useRef, type ReactNode } from 'react';
import { useUiStore, type ViewId } from '../stores/ui-store.ts';

export interface ViewFrameProps {
  id: ViewId;
  title: string;
  subtitle?: ReactNode;
  actions?: ReactNode;
  /** Extra class for the body, e.g. a view that fills the height instead of scrolling. */
  bodyClassName?: string;
  children: ReactNode;
}

export function ViewFrame({ id, title, subtitle, actions, bodyClassName, children }: ViewFrameProps) {
  const headingId = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  const focusPending = useUiStore((s) => s.focusPending);
  const focusDone = useUiStore((s) => s.focusDone);

  useEffect(() => {
    // Only a keyboard switch moves focus; a click leaves it on the sidebar button.
    if (!focusPending) return;
    heading.current?.focus();
    focusDone();
  }, [focusPending, focusDone]);

  return (
    <section className="view" data-testid={`view-${id}`} aria-labelledby={headingId}>
      <header className="view-header">
        <div className="view-heading">
          <h1 id={headingId} ref={heading} tabIndex={-1}>
            {title}
          </h1>
          {subtitle ? <p className="view-subtitle">{subtitle}</p> : null}
        </div>
        {actions ? <div className="view-actions">{actions}</div> : null}
      </header>
      <div className={bodyClassName ? `view-body ${bodyClassName}` : 'view-body'}>{children}</div>
    </section>
  );
}
