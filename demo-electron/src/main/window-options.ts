import type { BrowserWindowConstructorOptions } from 'electron';

/**
 * The window's options: the renderer gets no Node, runs sandboxed in its own JavaScript world, and
 * reaches main only through the preload's named functions. DevTools only in a development run: in a
 * packaged app they would hand anyone at the keyboard the page's tokens and the contract's calls.
 */
export function windowOptions(
  preloadPath: string,
  { development }: { development: boolean },
): BrowserWindowConstructorOptions {
  return {
    width: 1320,
    height: 880,
    minWidth: 900,
    minHeight: 640,
    show: false,
    title: 'multidrm demo',
    backgroundColor: '#f4f5f7',
    autoHideMenuBar: true,
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      spellcheck: false,
      devTools: development,
    },
  };
}
