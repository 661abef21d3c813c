// What a handler of the contract is, and how a zod failure reads: the services that own handlers
// (pty/, gateway/) and the ingresses that check input (gateway/) need these without depending on
// the dispatcher in host/, which sits above them.
import type { z } from 'zod';
import type { MethodTable } from '../../shared/contract.js';

/** Who is calling: recorded in the audit log with every operator action. */
export interface CallContext {
  console: 'electron' | 'serve' | 'cli';
  operator: string;
}

export type Handlers<M extends MethodTable> = {
  [K in keyof M]: (request: z.output<M[K]['request']>, ctx: CallContext) => z.input<M[K]['response']> | Promise<z.input<M[K]['response']>>;
};

/** One readable sentence per zod issue: "field `limit`: Too big: expected number to be <=1000". */
export function describeIssues(error: z.ZodError): { message: string; issues: { path: string; message: string }[] } {
  const issues = error.issues.map((i) => ({ path: i.path.map(String).join('.') || '(root)', message: i.message }));
  const message = issues.map((i) => (i.path === '(root)' ? i.message : `field \`${i.path}\`: ${i.message}`)).join('; ');
  return { message, issues };
}
