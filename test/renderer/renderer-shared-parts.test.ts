// The renderer's shared dialog and status parts render exactly the markup the dialogs and views
// wrote by hand before they were folded into them: the e2e suite and screen readers find buttons
// by role, label and test id, so a fold must not change a tag, a class or an attribute.
import { createElement as h } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { DialogActions, InlineError } from '../../renderer/src/components/dialog-actions.tsx';
import { LoadStatus } from '../../renderer/src/components/load-status.tsx';

const noop = () => undefined;

describe('DialogActions', () => {
  it('renders Cancel and a primary action that calls onConfirm, as the approval dialogs did', () => {
    const html = renderToStaticMarkup(h(DialogActions, { onCancel: noop, tone: 'primary', confirmTestId: 'always-confirm', busy: false, blocked: false, label: 'Approve and save the rule', busyLabel: 'Saving…', onConfirm: noop }));
    expect(html).toBe(
      renderToStaticMarkup(
        h('div', null, [
          h('button', { key: 1, type: 'button', className: 'button', onClick: noop }, 'Cancel'),
          h('button', { key: 2, type: 'button', className: 'button button-primary', 'data-testid': 'always-confirm', disabled: false, 'aria-busy': false, onClick: noop }, 'Approve and save the rule'),
        ]),
      ).replace(/^<div>|<\/div>$/g, ''),
    );
  });

  it('while busy, shows the busy words, is disabled and says aria-busy', () => {
    const html = renderToStaticMarkup(h(DialogActions, { onCancel: noop, tone: 'danger', confirmTestId: 'deny-confirm', form: 'deny-form', busy: true, label: 'Deny', busyLabel: 'Denying…' }));
    expect(html).toContain('<button type="submit" form="deny-form" class="button button-danger" data-testid="deny-confirm" disabled="" aria-busy="true">Denying…</button>');
  });

  it('keeps its label while busy when it has no busy words, and is blocked for a reason besides being busy', () => {
    const busy = renderToStaticMarkup(h(DialogActions, { onCancel: noop, tone: 'danger', confirmTestId: 'start-mode-confirm', busy: true, label: 'Go live' }));
    expect(busy).toContain('>Go live</button>');
    const blocked = renderToStaticMarkup(h(DialogActions, { onCancel: noop, tone: 'primary', confirmTestId: 'grant-confirm', busy: false, blocked: true, label: 'Approve and grant', confirmTitle: 'Nothing to change' }));
    expect(blocked).toMatch(/data-testid="grant-confirm" disabled="" aria-busy="false" title="Nothing to change">Approve and grant<\/button>$/);
  });

  it('names the Cancel button when asked to, for the dialogs whose tests press it', () => {
    const html = renderToStaticMarkup(h(DialogActions, { onCancel: noop, cancelTestId: 'batch-approve-cancel', tone: 'danger', confirmTestId: 'batch-approve-confirm', busy: false, label: 'Approve 3' }));
    expect(html.startsWith('<button type="button" class="button" data-testid="batch-approve-cancel">Cancel</button>')).toBe(true);
  });
});

describe('InlineError', () => {
  it('is an alert with the text when there is an error, and nothing otherwise', () => {
    expect(renderToStaticMarkup(h(InlineError, { error: 'The host refused: no such call' }))).toBe('<p class="inline-error" role="alert">The host refused: no such call</p>');
    expect(renderToStaticMarkup(h(InlineError, { error: null }))).toBe('');
    expect(renderToStaticMarkup(h(InlineError, { error: '' }))).toBe('');
  });

  it('says what failed before the reason, with the test id and layout class a view gives it', () => {
    expect(renderToStaticMarkup(h(InlineError, { error: 'disk full', prefix: 'Export failed', testId: 'audit-export-error' }))).toBe('<p class="inline-error" role="alert" data-testid="audit-export-error">Export failed: disk full</p>');
    expect(renderToStaticMarkup(h(InlineError, { error: 'gone', className: 'terminal-action-error' }))).toBe('<p class="inline-error terminal-action-error" role="alert">gone</p>');
    expect(renderToStaticMarkup(h(InlineError, { error: null, prefix: 'Export failed' }))).toBe('');
  });
});

describe('LoadStatus', () => {
  const props = { failed: 'Could not load the plugins', waiting: 'Plugins appear once the console is connected.', errorClassName: 'plugin-list-error', noteClassName: 'plugin-list-note' };
  it('says the data arrives once connected until the first answer', () => {
    expect(renderToStaticMarkup(h(LoadStatus, { ...props, loaded: false, error: null }))).toBe('<p class="muted plugin-list-note">Plugins appear once the console is connected.</p>');
  });
  it('shows why loading failed as an alert, and not the waiting note', () => {
    expect(renderToStaticMarkup(h(LoadStatus, { ...props, loaded: false, error: 'host refused' }))).toBe('<p class="inline-error plugin-list-error" role="alert">Could not load the plugins: host refused</p>');
  });
  it('shows nothing once loaded, and only the base classes without a view’s own', () => {
    expect(renderToStaticMarkup(h(LoadStatus, { ...props, loaded: true, error: null }))).toBe('');
    expect(renderToStaticMarkup(h(LoadStatus, { failed: 'Could not load the grants', waiting: 'Grants appear once the console is connected.', loaded: false, error: null }))).toBe('<p class="muted">Grants appear once the console is connected.</p>');
  });
});
