// Anchors inside views that code below views/ opens (setView(view, { anchor })), kept here so
// that sync/ names them without importing the view.

/** The "Connect an agent" panel in Settings (views/settings/agent-connect.tsx): the view scrolls to it when asked to (ui-store `anchor`). */
export const CONNECT_AGENT_ANCHOR = 'connect-agent';
