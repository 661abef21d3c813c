// A modal on the native <dialog>: the browser traps focus, Escape cancels, the rest of the
// console is inert underneath. Mount it to open it; unmount it to close it.
import { useEffect, useId, useRef, type ReactNode } from 'react';

export interface ModalDialogProps {
  title: string;
  onCancel(): void;
  children: ReactNode;
  /** Buttons, right-aligned under the body. */
  footer: ReactNode;
  testId?: string;
  className?: string;
}

export function ModalDialog({ title, onCancel, children, footer, testId, className }: ModalDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
    return () => d?.close();
  }, []);
  return (
    <dialog
      ref={ref}
      className={className ? `modal ${className}` : 'modal'}
      aria-labelledby={titleId}
      data-testid={testId}
      onCancel={(e) => {
        // Escape: let React decide (unmounting closes it), so state and DOM never disagree.
        e.preventDefault();
        onCancel();
      }}
    >
      <h2 id={titleId} className="modal-title">
        {title}
      </h2>
      <div className="modal-body">{children}</div>
      <div className="modal-footer">{footer}</div>
    </dialog>
  );
}
