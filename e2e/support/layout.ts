// Where things are drawn, for specs about layout: boxes in CSS pixels of the viewport.
import type { Locator } from '@playwright/test';

export interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** The element's border box. */
export async function boxOf(locator: Locator): Promise<Box> {
  return locator.evaluate((el) => {
    const r = el.getBoundingClientRect();
    return { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
  });
}

/**
 * The box of the text an element draws (all its lines). Unlike the element's own box, it grows
 * past the element when the text does not wrap and overflows it.
 */
export async function textBoxOf(locator: Locator): Promise<Box> {
  return locator.evaluate((el) => {
    const range = document.createRange();
    range.selectNodeContents(el);
    const r = range.getBoundingClientRect();
    return { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
  });
}
