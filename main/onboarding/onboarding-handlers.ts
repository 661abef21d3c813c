// The Getting Started panel's methods: its state, and the test call it sends through the real
// gateway. Both wait for the host's first plugin scan, since each step reads the plugins.
import type { GatehouseContract } from '../../shared/contract.js';
import type { Handlers } from '../core/handlers.js';
import type { GettingStarted } from './getting-started.js';

type OnboardingMethods = 'gettingStarted.get' | 'gettingStarted.update' | 'gateway.testCall';
export type OnboardingHandlers = Pick<Handlers<GatehouseContract['methods']>, OnboardingMethods>;

export function onboardingHandlers(gettingStarted: GettingStarted, ready: Promise<void>): OnboardingHandlers {
  return {
    'gettingStarted.get': async () => {
      await ready;
      return gettingStarted.view();
    },
    'gettingStarted.update': async (patch) => {
      await ready;
      return gettingStarted.update(patch);
    },
    'gateway.testCall': async (req, ctx) => {
      await ready;
      return gettingStarted.testCall(req, ctx);
    },
  };
}
