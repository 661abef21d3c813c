// A modal on the native <dialog>: the browser traps focus, Escape cancels, the rest of the
// console is inert underneath. Mount it to open it; unmount it to close it.
import { useEffect, useId, useLayoutEffect, useRef, useState, type ReactNode } from 'react';

export interface ModalDialogProps {
  title: string;
  onCancel(): void;
  children: ReactNode;
  /** Buttons, right-aligned under the body. */
  footer: ReactNode;
  testId?: string;
  className?: string;
}

const FOCUSABLE = 'input:not([disabled]):not([type="hidden"]), textarea:not([disabled]), select:not([disabled]), button:not([disabled]), a[href], [tabindex]:not([tabindex="-1"])';

export function ModalDialog({ title, onCancel, children, footer, testId, className }: ModalDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  // The body and footer mount only once the dialog is open. React's autoFocus focuses an element
  // when it mounts, and React does not write the autofocus attribute that showModal() looks for:
  // mounted inside a closed dialog (display: none) the focus() did nothing, and showModal() then
  // focused the first control instead (Cancel, not "Go live").
  const [open, setOpen] = useState(false);
  useLayoutEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
    setOpen(true);
    return () => d?.close();
  }, []);
  // No control asked for the focus (no autoFocus): the first one gets it, as showModal() would.
  useEffect(() => {
    const d = ref.current;
    if (!open || !d || (document.activeElement && d.contains(document.activeElement) && document.activeElement !== d)) return;
    d.querySelector<HTMLElement>(FOCUSABLE)?.focus();
  }, [open]);
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
      {open ? (
        <>
          <div className="modal-body">{children}</div>
          <div className="modal-footer">{footer}</div>
        </>
      ) : null}
    </dialog>
  );
}
