// Canvas charts cannot use CSS variables: they read the theme's colour once, when drawn.

/** The value of a CSS custom property on the root, or `fallback` when it is unset. */
export function themeColour(name: string, fallback: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;
}
