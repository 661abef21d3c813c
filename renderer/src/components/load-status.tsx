// What a view shows about pushed data it does not have yet: why it could not be loaded (an alert),
// or, until the first answer, that it arrives once the console is connected. The views that list
// what the host pushes (inbox, grants, health, plugins, terminals) all say it the same way.
import { InlineError } from './dialog-actions.tsx';

export interface LoadStatusProps {
  loaded: boolean;
  error: string | null;
  /** The sentence before the host's reason, e.g. "Could not load the grants". */
  failed: string;
  /** Said until the first answer, e.g. "Grants appear once the console is connected." */
  waiting: string;
  /** A view's own layout classes beside inline-error and muted. */
  errorClassName?: string;
  noteClassName?: string;
}

export function LoadStatus({ loaded, error, failed, waiting, errorClassName, noteClassName }: LoadStatusProps) {
  return (
    <>
      <InlineError error={error} prefix={failed} className={errorClassName} />
      {!loaded && !error ? <p className={noteClassName ? `muted ${noteClassName}` : 'muted'}>{waiting}</p> : null}
    </>
  );
}
