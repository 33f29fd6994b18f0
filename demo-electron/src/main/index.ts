// Electron's entry point: hands Electron's modules to runDemoApp. Everything testable lives there.
import {
  app,
  BrowserWindow,
  ipcMain,
  protocol,
  session,
  type BrowserWindowConstructorOptions,
} from 'electron';
import { join } from 'node:path';
import { runDemoApp } from './app.ts';
import type { ElectronLike } from './electron-types.ts';
import { realServiceFromEnv } from './stack/real-service.ts';
import { demoPaths } from './stack/start-stack.ts';
import { windowOptions } from './window-options.ts';

const appPath = app.getAppPath();
// Electron's own types overload `on` per event; the small interfaces name only what is used.
const electron = {
  app,
  BrowserWindow,
  ipcMain,
  protocol,
  session,
} as unknown as ElectronLike<BrowserWindowConstructorOptions>;

runDemoApp(electron, {
  preloadPath: join(appPath, 'dist', 'preload', 'index.cjs'),
  stack: {
    ...demoPaths(appPath, app.isPackaged ? process.resourcesPath : undefined),
    realService: realServiceFromEnv(process.env),
  },
  windowOptions: (preload) => windowOptions(preload, { development: !app.isPackaged }),
}).catch((error: unknown) => {
  console.error(
    `The demo could not start: ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exitCode = 1;
  app.quit();
});
