/**
 * The few parts of Electron the main process uses, as small interfaces: index.ts passes the real
 * modules, tests pass fakes. Nothing here imports electron.
 */
import type { ProtocolLike } from './app-protocol.ts';

export type { ProtocolLike };

export interface PreventableEvent {
  preventDefault(): void;
}

export interface WebContentsLike {
  readonly id: number;
  on(
    event: 'will-navigate' | 'will-redirect',
    listener: (event: PreventableEvent, url: string) => void,
  ): unknown;
  on(event: 'will-attach-webview', listener: (event: PreventableEvent) => void): unknown;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }): void;
}

export interface PermissionDetails {
  requestingUrl?: string;
}

export interface SessionLike {
  setPermissionRequestHandler(
    handler: (
      webContents: unknown,
      permission: string,
      callback: (granted: boolean) => void,
      details: PermissionDetails,
    ) => void,
  ): void;
  setPermissionCheckHandler(
    handler: (webContents: unknown, permission: string, requestingOrigin: string) => boolean,
  ): void;
}

export interface WindowLike {
  readonly webContents: WebContentsLike;
  loadURL(url: string): Promise<unknown>;
  once(event: 'ready-to-show', listener: () => void): unknown;
  show(): void;
}

export interface IpcEventLike {
  readonly sender: { readonly id: number };
  readonly senderFrame: { readonly url: string } | null;
}

export interface IpcMainLike {
  handle(channel: string, listener: (event: IpcEventLike, ...args: unknown[]) => unknown): void;
  removeHandler(channel: string): void;
}

export interface AppLike {
  whenReady(): Promise<unknown>;
  on(event: 'window-all-closed' | 'will-quit', listener: () => void): unknown;
  on(
    event: 'web-contents-created',
    listener: (event: unknown, contents: WebContentsLike) => void,
  ): unknown;
  quit(): void;
}

export interface ElectronLike<Options> {
  app: AppLike;
  protocol: ProtocolLike;
  BrowserWindow: new (options: Options) => WindowLike;
  ipcMain: IpcMainLike;
  session: { readonly defaultSession: SessionLike };
}
