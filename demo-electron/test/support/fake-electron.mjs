// A stand-in for the `electron` module, for running the bundled main process under plain Node. It
// prints what the main process does with it, one marker per line, and quits once the page loaded.
const listeners = new Map();
const report = (marker, value) => console.log(`${marker} ${JSON.stringify(value)}`);

export const app = {
  isPackaged: false,
  getAppPath: () => process.env.FAKE_ELECTRON_APP_PATH,
  whenReady: async () => undefined,
  on(event, listener) {
    listeners.set(event, [...(listeners.get(event) ?? []), listener]);
  },
  quit() {
    for (const listener of listeners.get('will-quit') ?? []) listener();
    setTimeout(() => process.exit(0), 300);
  },
};

export const ipcMain = {
  handle: (channel) => report('IPC', channel),
  removeHandler: () => undefined,
};

const schemes = new Map();
export const protocol = {
  registerSchemesAsPrivileged: (list) => report('SCHEMES', list),
  handle(scheme, handler) {
    report('PROTOCOL', scheme);
    schemes.set(scheme, handler);
  },
  unhandle: (scheme) => schemes.delete(scheme),
};

export const session = {
  defaultSession: {
    setPermissionRequestHandler: () => report('PERMISSIONS', 'request handler'),
    setPermissionCheckHandler: () => report('PERMISSIONS', 'check handler'),
  },
};

let nextId = 1;
export class BrowserWindow {
  constructor(options) {
    report('WINDOW', options.webPreferences);
    this.webContents = { id: nextId++, on: () => undefined, setWindowOpenHandler: () => undefined };
    for (const listener of listeners.get('web-contents-created') ?? []) {
      listener({}, this.webContents);
    }
  }
  once() {}
  show() {}
  async loadURL(url) {
    // The app's own scheme is answered by its protocol handler, as Electron does.
    const handler = schemes.get(new URL(url).protocol.slice(0, -1));
    const response = handler ? await handler(new Request(url)) : await fetch(url);
    const html = await response.text();
    report('LOADED', {
      url,
      status: response.status,
      csp: response.headers.get('content-security-policy'),
      title: /<title>([^<]*)<\/title>/.exec(html)?.[1],
    });
    app.quit();
  }
}
