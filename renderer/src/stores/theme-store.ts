// The console's colour theme: the operator's choice (follow the system, light or dark), kept in
// this browser profile, and the theme in force. styles/ key every light-theme colour on
// <html data-theme="light">, so one attribute switches the console, Monaco and the charts alike.
import { create } from 'zustand';

export type ThemeChoice = 'system' | 'light' | 'dark';
export type Theme = 'light' | 'dark';

const THEME_KEY = 'gatehouse.theme';
const systemLight = () => typeof window !== 'undefined' && window.matchMedia('(prefers-color-scheme: light)').matches;

function readChoice(): ThemeChoice {
  try {
    const v = localStorage.getItem(THEME_KEY);
    return v === 'light' || v === 'dark' ? v : 'system';
  } catch {
    return 'system';
  }
}

function resolve(choice: ThemeChoice): Theme {
  return choice === 'system' ? (systemLight() ? 'light' : 'dark') : choice;
}

export interface ThemeStore {
  choice: ThemeChoice;
  /** The theme on screen now. */
  theme: Theme;
}

export const useThemeStore = create<ThemeStore>()(() => {
  const choice = readChoice();
  return { choice, theme: resolve(choice) };
});

function apply(): void {
  const { choice } = useThemeStore.getState();
  const theme = resolve(choice);
  document.documentElement.dataset['theme'] = theme;
  if (useThemeStore.getState().theme !== theme) useThemeStore.setState({ theme });
}

/** Saves the choice (when this console can store it) and applies it at once. */
export function setThemeChoice(choice: ThemeChoice): void {
  try {
    if (choice === 'system') localStorage.removeItem(THEME_KEY);
    else localStorage.setItem(THEME_KEY, choice);
  } catch {
    // Not stored (storage off): the choice still holds until the page reloads.
  }
  useThemeStore.setState({ choice });
  apply();
}

/** The next choice in the palette's cycle: system → light → dark → system. */
export function nextThemeChoice(choice: ThemeChoice): ThemeChoice {
  return choice === 'system' ? 'light' : choice === 'light' ? 'dark' : 'system';
}

/** Applies the theme now and follows the system's while the choice is "system". Call once. */
export function startTheme(): void {
  apply();
  window.matchMedia('(prefers-color-scheme: light)').addEventListener('change', apply);
}
