// Electron IPC around the host: one invoke channel and one event channel for the whole
// contract, so adding a method needs no change here.
import type { IpcMain, IpcMainInvokeEvent, WebContents } from 'electron';
import { ipcChannels } from '../../../shared/contract.js';
import type { CallContext, Dispatcher } from '../../host/dispatcher.js';
import { fail } from '../../host/dispatcher.js';
import { isTrustedSender } from './security.js';

export function bindIpc(
  ipcMain: Pick<IpcMain, 'handle' | 'removeHandler'>,
  host: { dispatcher: Dispatcher; bus: { subscribe(l: (name: string, payload: unknown) => void): () => void } },
  ctx: CallContext,
  targets: () => Iterable<WebContents>,
): () => void {
  ipcMain.handle(ipcChannels.invoke, async (event: IpcMainInvokeEvent, method: unknown, params: unknown) => {
    if (!isTrustedSender(event.senderFrame)) return fail('forbidden', 'IPC from an untrusted frame was refused.');
    return host.dispatcher.dispatch(method, params, ctx);
  });
  const unsubscribe = host.bus.subscribe((name, payload) => {
    for (const wc of targets()) if (!wc.isDestroyed()) wc.send(ipcChannels.event, name, payload);
  });
  return () => {
    unsubscribe();
    ipcMain.removeHandler(ipcChannels.invoke);
  };
}
