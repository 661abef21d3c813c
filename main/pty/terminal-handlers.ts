// The terminals.* methods of the contract, on top of a PtyManager. The host spreads these into
// its handler table; everything else about terminals lives in PtyManager.
import { basename } from 'node:path';
import type { GatehouseContract } from '../../shared/contract.js';
import type { CallContext, Handlers } from '../core/handlers.js';
import { OperationError } from '../core/operation-error.js';
import { PtyRefusal, type PtyManager } from './pty-manager.js';

type TerminalMethods = Extract<keyof GatehouseContract['methods'], `terminals.${string}`>;
export type TerminalHandlers = Pick<Handlers<GatehouseContract['methods']>, TerminalMethods>;

/**
 * Which console a call comes from. Both shells pass the same CallContext object for every call
 * of one connection (the serve shell one per WebSocket, Electron one per window) and announce
 * it through operatorConnected, so the object itself identifies the connection: no shell needs
 * to know about terminals.
 */
export class ConsoleKeys {
  private readonly keys = new WeakMap<CallContext, string>();
  private next = 1;

  /** The key of this connection, made on first use. */
  of(ctx: CallContext): string {
    let key = this.keys.get(ctx);
    if (!key) this.keys.set(ctx, (key = `${ctx.console}-${this.next++}`));
    return key;
  }

  /** The connection closed: returns its key (if it had one) and forgets it. */
  left(ctx: CallContext): string | undefined {
    const key = this.keys.get(ctx);
    this.keys.delete(ctx);
    return key;
  }
}

export function terminalHandlers(ptys: PtyManager, consoles: ConsoleKeys): TerminalHandlers {
  /**
   * Watching and typing are per connection and end when it closes. The HTTP API (`cli`) has no
   * connection that closes: an attach from it would hold a program paused for good.
   */
  const consoleOf = (ctx: CallContext, what: string): string => {
    if (ctx.console === 'cli') throw new OperationError('no_console', `${what} needs a console connection (the Terminals view); the HTTP API can list, start and kill terminals.`);
    return consoles.of(ctx);
  };
  const translate = (err: unknown) => (err instanceof PtyRefusal ? new OperationError(err.reason, err.message) : err);
  const refusals = <T>(fn: () => T): T => {
    try {
      return fn();
    } catch (err) {
      throw translate(err);
    }
  };
  const viewer = (ctx: CallContext) => (ctx.console === 'cli' ? undefined : consoles.of(ctx));

  return {
    'terminals.list': (_req, ctx) => ({ sessions: ptys.list(viewer(ctx)) }),
    'terminals.start': async ({ command, args, cols, rows }, ctx) => {
      const program = command ?? ptys.defaultShell();
      let info;
      try {
        info = await ptys.start({
          command: program,
          args: args ?? [],
          cols,
          rows,
          title: command ? [command, ...(args ?? [])].join(' ') : `${basename(program)} (operator shell)`,
          origin: { actor: `operator:${ctx.operator}`, tool: 'shell' },
        });
      } catch (err) {
        throw translate(err);
      }
      return ptys.get(info.id, viewer(ctx));
    },
    'terminals.attach': ({ id }, ctx) => refusals(() => ptys.attach(id, consoleOf(ctx, 'Watching a terminal'))),
    'terminals.detach': ({ id }, ctx) => {
      if (ctx.console !== 'cli') ptys.detach(id, consoles.of(ctx));
      return {};
    },
    'terminals.ack': ({ id, chars }, ctx) => {
      if (ctx.console !== 'cli') ptys.ack(id, consoles.of(ctx), chars);
      return {};
    },
    'terminals.input': ({ id, data }, ctx) =>
      refusals(() => {
        ptys.input(id, consoleOf(ctx, 'Typing into a terminal'), data);
        return {};
      }),
    'terminals.resize': ({ id, cols, rows }, ctx) => refusals(() => ({ applied: ctx.console === 'cli' ? false : ptys.resize(id, consoles.of(ctx), cols, rows) })),
    'terminals.takeOver': ({ id }, ctx) => refusals(() => ptys.takeOver(id, consoleOf(ctx, 'Taking over a terminal'), ctx.operator)),
    'terminals.release': ({ id }, ctx) => refusals(() => ptys.release(id, consoleOf(ctx, 'Releasing a terminal'), ctx.operator)),
    'terminals.kill': async ({ id }, ctx) => {
      try {
        await ptys.kill(id, `operator:${ctx.operator}`);
      } catch (err) {
        throw translate(err);
      }
      return ptys.get(id, viewer(ctx));
    },
  };
}
