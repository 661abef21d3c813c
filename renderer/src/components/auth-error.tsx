// Shown instead of the whole console when the host refuses the console's link or session:
// nothing from the app renders behind it. The host's own sentence says which (a link used
// before, expired, a revoked session) and what to run.
import { GateIcon } from './icons.tsx';
import { useConnectionStore } from '../stores/connection-store.ts';

export function AuthError() {
  const detail = useConnectionStore((s) => s.detail);
  return (
    <main className="auth-error" data-testid="auth-error" role="alert" aria-labelledby="auth-error-heading">
      <div className="auth-error-card">
        <div className="brand">
          <GateIcon />
          <span>Gatehouse</span>
        </div>
        <h1 id="auth-error-heading">Not authorized</h1>
        <p data-testid="auth-error-detail">{detail ?? 'The host refused this console.'}</p>
        <p className="muted">
          Console links work once, within 2 minutes of being printed. Run <code>gatehouse url</code> (with the same <code>--home</code> as the host) for a new one.
        </p>
      </div>
    </main>
  );
}
