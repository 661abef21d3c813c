// Copies a text to the clipboard and says whether it worked (the clipboard may be refused).
import { useEffect, useState } from 'react';

export function CopyButton({ text, label, testId }: { text: string; label: string; testId: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const t = setTimeout(() => setState('idle'), 2000);
    return () => clearTimeout(t);
  }, [state]);
  return (
    <button
      type="button"
      className="button button-small"
      data-testid={testId}
      data-state={state}
      aria-label={label}
      title={label}
      onClick={() => {
        // navigator.clipboard is missing outside secure contexts (a served console on a LAN address).
        (navigator.clipboard ? navigator.clipboard.writeText(text) : Promise.reject(new Error('no clipboard'))).then(
          () => setState('copied'),
          () => setState('failed'),
        );
      }}
    >
      {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy refused' : 'Copy'}
    </button>
  );
}
