// What happens when the operator clicks a link in a terminal. A program in the terminal (an
// agent's tool, a hostile one) chooses both a link's text and its address (OSC 8), so the address
// is asked about before it opens, and shown through the console's display escaping
// (shared/display-text.ts): raw, a bidi override or control character in it would draw another
// address than the one that opens. xterm.js's own prompt showed it raw, and in the desktop app its
// empty window.open() opened nothing.
import type { ILinkHandler } from '@xterm/xterm';
import { displayText } from '../../../../shared/display-text.ts';

/** The question asked before a terminal link opens: the address escaped, and its host as the browser will reach it (IDN as punycode). */
export function terminalLinkPrompt(uri: string): string {
  let host: string | null;
  try {
    host = new URL(uri).host;
  } catch {
    host = null;
  }
  return [
    'Open this address from the terminal in your browser?',
    '',
    displayText(uri),
    ...(host !== null ? ['', `Host: ${displayText(host)}`] : []),
    '',
    'The program in the terminal chose it; the text it showed for the link can say something else.',
  ].join('\n');
}

export interface LinkDeps {
  confirm(message: string): boolean;
  /** Opens the address outside the console (a new browser tab; the desktop app hands it to the system browser). */
  open(uri: string): void;
}

/** The xterm.js link handler: http(s) only (xterm's default filter stays on), each asked about with terminalLinkPrompt. */
export function terminalLinkHandler(deps: LinkDeps): ILinkHandler {
  return {
    allowNonHttpProtocols: false,
    activate: (_event, uri) => {
      if (deps.confirm(terminalLinkPrompt(uri))) deps.open(uri);
    },
  };
}

/** The browser's own: confirm() and a tab that cannot reach back to the console. */
export const browserLinkDeps: LinkDeps = {
  confirm: (message) => window.confirm(message),
  open: (uri) => void window.open(uri, '_blank', 'noopener,noreferrer'),
};
