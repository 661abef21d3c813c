// The Catalog view's data: sources (with until when their metadata is valid) and updates waiting.
// Filled by bindCatalog (sync/catalog-actions.ts).
import { create } from 'zustand';
import type { CatalogSourceView, CatalogUpdateView } from '../../../shared/contract.ts';

export interface CatalogState {
  sources: CatalogSourceView[] | null;
  updates: CatalogUpdateView[];
  error: string | null;
}

export const initialCatalogState: CatalogState = { sources: null, updates: [], error: null };

export const useCatalogStore = create<CatalogState>()(() => ({ ...initialCatalogState }));
