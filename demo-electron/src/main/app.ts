import { appProtocolHandler, APP_SCHEME, registerAppScheme } from './app-protocol.ts';
import { startDemoStack, type DemoStack, type DemoStackOptions } from './stack/start-stack.ts';
import type { ElectronLike, WindowLike } from './electron-types.ts';
import { registerIpc } from './ipc.ts';
import { hardenContents, isAppUrl, restrictPermissions } from './security.ts';

export interface DemoAppOptions<Options> {
  /** The built single-file preload. */
  preloadPath: string;
  stack: Omit<DemoStackOptions, 'shell'>;
  windowOptions: (preloadPath: string) => Options;
  /** Injected by tests; default startDemoStack. */
  startStack?: (options: DemoStackOptions) => Promise<DemoStack>;
}

export interface RunningDemoApp {
  stack: DemoStack;
  window: WindowLike;
  /** Unregisters IPC and stops the stack (also done when the app quits). */
  shutdown(): Promise<void>;
}

/**
 * The main process, kept thin: start the stack, lock the session and window down, serve the page
 * and site through the app's own scheme, register the contract's IPC, open the page. Electron's
 * modules come in as arguments. Call it before the app is ready: the scheme is registered first.
 */
export async function runDemoApp<Options>(
  electron: ElectronLike<Options>,
  options: DemoAppOptions<Options>,
): Promise<RunningDemoApp> {
  const { app, BrowserWindow, ipcMain, protocol, session } = electron;
  // Privileges can only be given before the app is ready.
  registerAppScheme(protocol);
  let appOrigin: string | undefined;
  // Any web contents, including ones made later, gets the same rules as the window.
  app.on('web-contents-created', (_event, contents) => hardenContents(contents, () => appOrigin));
  app.on('window-all-closed', () => app.quit());
  await app.whenReady();

  const stack = await (options.startStack ?? startDemoStack)({
    ...options.stack,
    shell: 'electron',
  });
  appOrigin = stack.url;
  protocol.handle(APP_SCHEME, appProtocolHandler(stack.handle));
  restrictPermissions(session.defaultSession, () => appOrigin);

  const window = new BrowserWindow(options.windowOptions(options.preloadPath));
  const windowId = window.webContents.id;
  const unregister = registerIpc(
    ipcMain,
    stack.api,
    (event) => event.sender.id === windowId && isAppUrl(event.senderFrame?.url, stack.url),
  );
  let stopped: Promise<void> | undefined;
  const shutdown = () => {
    stopped ??= (async () => {
      unregister();
      protocol.unhandle(APP_SCHEME);
      await stack.close();
    })();
    return stopped;
  };
  app.on('will-quit', () => void shutdown());
  window.once('ready-to-show', () => window.show());
  await window.loadURL(stack.openUrl);
  return { stack, window, shutdown };
}
