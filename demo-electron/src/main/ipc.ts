import { CALLS, type DemoApi, type DemoCall, type Result } from '../shared/contract.ts';
import { parseArguments } from './contract-schemas.ts';
import type { IpcEventLike, IpcMainLike } from './electron-types.ts';

const FORBIDDEN: Result<never> = {
  ok: false,
  error: {
    code: 'FORBIDDEN_SENDER',
    message: 'Only the demo window may call the main process.',
    fix: 'Use the demo window.',
  },
};

/**
 * Registers one handler per call of the contract. Each checks the sender (the app's window, its
 * main frame on the app's origin) and parses the arguments before the call runs. Returns the undo.
 */
export function registerIpc(
  ipcMain: IpcMainLike,
  api: DemoApi,
  isTrustedSender: (event: IpcEventLike) => boolean,
): () => void {
  const calls = Object.keys(CALLS) as DemoCall[];
  for (const call of calls) {
    ipcMain.handle(CALLS[call].channel, async (event, ...args) => {
      if (!isTrustedSender(event)) return FORBIDDEN;
      const parsed = parseArguments(call, args);
      if (!parsed.ok) return parsed;
      const method = api[call] as (...a: unknown[]) => Promise<Result<unknown>>;
      return method(...(parsed.args as unknown[]));
    });
  }
  return () => {
    for (const call of calls) ipcMain.removeHandler(CALLS[call].channel);
  };
}
