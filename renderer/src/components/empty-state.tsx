import type { ReactNode } from 'react';

/** What a view shows when it has nothing to list: what would appear here, and when. */
export function EmptyState({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="empty-state">
      <p className="empty-state-title">{title}</p>
      <p className="empty-state-body">{children}</p>
    </div>
  );
}
