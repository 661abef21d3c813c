// What a plugin may do, as the consent screen and the plugin page show it: one row per kind of
// access, "nothing" spelled out so an empty list is not mistaken for an unknown one.
import { SafeText } from '../../components/safe-text.tsx';

export interface Permissions {
  read: string[];
  write: string[];
  hosts: string[];
  env: string[];
}

const LABELS: [keyof Permissions, string][] = [
  ['read', 'May read'],
  ['write', 'May write'],
  ['hosts', 'May reach'],
  ['env', 'Environment'],
];

export function PermissionList({ permissions, testId }: { permissions: Permissions; testId?: string }) {
  return (
    <dl className="facts" data-testid={testId}>
      {LABELS.map(([k, label]) => (
        <div key={k} className="catalog-fact" data-perm={k}>
          <dt>{label}</dt>
          <dd className="mono">{permissions[k].length ? permissions[k].map((x) => <div key={x}><SafeText text={x} /></div>) : <span className="muted">nothing</span>}</dd>
        </div>
      ))}
    </dl>
  );
}

export function formatLimits(l: { timeoutSecs: number; fuel?: number | undefined; memoryMb?: number | undefined }): string {
  return [`${l.timeoutSecs} s per call`, l.fuel !== undefined ? `${l.fuel.toLocaleString('en')} fuel` : null, l.memoryMb !== undefined ? `${l.memoryMb} MB memory` : null].filter(Boolean).join(', ');
}
