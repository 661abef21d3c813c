// Shown instead of the whole console when the host refuses the token: nothing from the app
// renders behind it.
import { GateIcon } from './icons.tsx';

export function AuthError() {
  return (
    <main className="auth-error" data-testid="auth-error" role="alert" aria-labelledby="auth-error-heading">
      <div className="auth-error-card">
        <div className="brand">
          <GateIcon />
          <span>Gatehouse</span>
        </div>
        <h1 id="auth-error-heading">Not authorized</h1>
        <p>
          The console refused this token. Open the exact URL that <code>gatehouse serve</code> printed (it ends in #token=…).
        </p>
        <p className="muted">
          If the host was started with <code>--new-token</code>, the old URL no longer works; use the new one it printed.
        </p>
      </div>
    </main>
  );
}
