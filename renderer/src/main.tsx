// Entry point: picks the transport for this shell, binds the stores, renders the console.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/app.tsx';
import { ClientContext } from './sync/client-context.ts';
import { bindStores, consoleDomains } from './sync/bind-stores.ts';
import { createClient, createDefaultTransport } from './transport/client.ts';
import { viewRegistry } from './views/view-registry.ts';
import { startTheme } from './stores/theme-store.ts';
import './styles/theme.css';
import './styles/base.css';
import './styles/layout.css';
import './styles/views.css';
import './styles/plugins.css';
import './styles/health.css';

startTheme();
const client = createClient(createDefaultTransport());
bindStores(client, consoleDomains(viewRegistry));
client.start();

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element.');
createRoot(root).render(
  <StrictMode>
    <ClientContext value={client}>
      <App />
    </ClientContext>
  </StrictMode>,
);
