// Checker processes and their health. Empty until the checker pool exists.
import { create } from 'zustand';

export interface CheckerHealth {
  name: string;
  state: string;
}

export interface HealthStore {
  checkers: CheckerHealth[];
}

export const useHealthStore = create<HealthStore>()(() => ({ checkers: [] }));
