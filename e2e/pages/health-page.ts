// The Health view as an operator uses it: read a plugin's breaker and its countdown, reset it,
// restart a checker, see whether plugins run sandboxed. Specs say what they do; this knows the DOM.
import { expect, type Locator, type Page } from '@playwright/test';

export type BreakerState = 'closed' | 'open' | 'half_open' | 'disabled';

export class HealthPage {
  readonly root: Locator;
  readonly rows: Locator;
  readonly sandboxStatus: Locator;

  constructor(readonly page: Page) {
    this.root = page.getByTestId('view-health');
    this.rows = page.getByTestId('health-row');
    this.sandboxStatus = page.getByTestId('sandbox-status');
  }

  row(name: string): Locator {
    return this.page.locator(`[data-testid="health-row"][data-name="${cssString(name)}"]`);
  }

  breakerState(name: string): Locator {
    return this.row(name).getByTestId('breaker-state');
  }

  countdown(name: string): Locator {
    return this.row(name).getByTestId('breaker-countdown');
  }

  consecutiveFailures(name: string): Locator {
    return this.row(name).getByTestId('breaker-failures');
  }

  sparkline(name: string): Locator {
    return this.row(name).getByTestId('latency-sparkline');
  }

  resetButton(name: string): Locator {
    return this.row(name).getByTestId('health-reset');
  }

  restartButton(name: string): Locator {
    return this.row(name).getByTestId('health-restart');
  }

  async expectBreaker(name: string, state: BreakerState): Promise<void> {
    await expect(this.row(name)).toHaveAttribute('data-breaker', state);
  }

  /** The countdown to the next probe in seconds ("4:59" → 299), or null when it shows no time. */
  async secondsToProbe(name: string): Promise<number | null> {
    return parseCountdown(await this.countdown(name).textContent());
  }

  async reset(name: string): Promise<void> {
    await this.resetButton(name).click();
  }

  async restart(name: string): Promise<void> {
    await this.restartButton(name).click();
  }
}

/** "4:59" → 299, "1:00:00" → 3600; anything else → null. */
export function parseCountdown(text: string | null): number | null {
  const m = /^\s*(?:(\d+):)?(\d+):(\d\d)\s*$/.exec(text ?? '');
  if (!m) return null;
  return Number(m[1] ?? 0) * 3600 + Number(m[2]) * 60 + Number(m[3]);
}

function cssString(s: string): string {
  return s.replace(/["\\]/g, '\\$&');
}
