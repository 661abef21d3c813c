// Gives components the client without a module-level singleton, so tests can pass their own.
import { createContext, useContext } from 'react';
import type { GatehouseClient } from '../transport/client.ts';

export const ClientContext = createContext<GatehouseClient | null>(null);

export function useClient(): GatehouseClient {
  const client = useContext(ClientContext);
  if (!client) throw new Error('useClient() needs a <ClientContext value={client}> above it.');
  return client;
}
