// The policy.* methods of the contract: the Rules view reads, checks and saves policy.yaml
// through the PolicyEditor, which records every change with its diff.
import type { GatehouseContract } from '../../shared/contract.js';
import type { Handlers } from '../core/handlers.js';
import type { PolicyEditor } from './policy-editor.js';

type PolicyMethods = 'policy.get' | 'policy.check' | 'policy.save';
export type PolicyHandlers = Pick<Handlers<GatehouseContract['methods']>, PolicyMethods>;

export function policyHandlers(editor: PolicyEditor): PolicyHandlers {
  return {
    'policy.get': () => editor.view(),
    'policy.check': ({ text }) => editor.check(text),
    'policy.save': ({ text }, ctx) => editor.save(text, ctx.operator),
  };
}
