import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runDemoApp, type RunningDemoApp } from '../src/main/app.ts';
import type {
  ElectronLike,
  IpcEventLike,
  PermissionDetails,
  PreventableEvent,
  SessionLike,
  WebContentsLike,
  WindowLike,
} from '../src/main/electron-types.ts';
import { registerIpc } from '../src/main/ipc.ts';
import {
  APP_ORIGIN,
  APP_SCHEME,
  APP_SCHEME_PRIVILEGES,
  type ProtocolLike,
} from '../src/main/app-protocol.ts';
import { ALLOWED_PERMISSIONS, hardenContents, restrictPermissions } from '../src/main/security.ts';
import { windowOptions } from '../src/main/window-options.ts';
import { CALLS, type DemoApi, type Result } from '../src/shared/contract.ts';
import { startDemoStack } from '../src/main/stack/start-stack.ts';
import { startTestStack } from './support/stack.ts';

// The main process under Node: Electron's modules are replaced by small fakes passed in as arguments.

type Listener = (...args: never[]) => unknown;

class FakeContents implements WebContentsLike {
  static next = 1;
  readonly id = FakeContents.next++;
  readonly listeners = new Map<string, Listener[]>();
  openHandler: ((details: { url: string }) => { action: 'deny' }) | undefined;
  on(event: string, listener: Listener) {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
    return this;
  }
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }) {
    this.openHandler = handler;
  }
  /** Fires an event the way Electron does; true when a listener prevented it. */
  fire(event: string, url?: string): boolean {
    let prevented = false;
    const e: PreventableEvent = { preventDefault: () => (prevented = true) };
    for (const listener of this.listeners.get(event) ?? [])
      (listener as (e: PreventableEvent, u?: string) => void)(e, url);
    return prevented;
  }
}

class FakeSession implements SessionLike {
  request: Parameters<SessionLike['setPermissionRequestHandler']>[0] | undefined;
  check: Parameters<SessionLike['setPermissionCheckHandler']>[0] | undefined;
  setPermissionRequestHandler(handler: NonNullable<FakeSession['request']>) {
    this.request = handler;
  }
  setPermissionCheckHandler(handler: NonNullable<FakeSession['check']>) {
    this.check = handler;
  }
  ask(permission: string, details: PermissionDetails): boolean {
    let granted: boolean | undefined;
    this.request?.({}, permission, (g) => (granted = g), details);
    if (granted === undefined) throw new Error('the handler did not answer');
    return granted;
  }
}

class FakeIpcMain {
  readonly handlers = new Map<string, (event: IpcEventLike, ...args: unknown[]) => unknown>();
  handle(channel: string, listener: (event: IpcEventLike, ...args: unknown[]) => unknown) {
    if (this.handlers.has(channel)) throw new Error(`second handler for ${channel}`);
    this.handlers.set(channel, listener);
  }
  removeHandler(channel: string) {
    this.handlers.delete(channel);
  }
  invoke(channel: string, event: IpcEventLike, ...args: unknown[]): Promise<Result<unknown>> {
    const handler = this.handlers.get(channel);
    if (!handler) throw new Error(`no handler for ${channel}`);
    return Promise.resolve(handler(event, ...args)) as Promise<Result<unknown>>;
  }
}

class FakeProtocol implements ProtocolLike {
  readonly privileged: Parameters<ProtocolLike['registerSchemesAsPrivileged']>[0] = [];
  readonly handlers = new Map<string, (request: Request) => Promise<Response>>();
  /** Whether the app was ready when the scheme got its privileges (Electron requires before). */
  registeredBeforeReady: boolean | undefined;
  ready = false;
  registerSchemesAsPrivileged(schemes: Parameters<ProtocolLike['registerSchemesAsPrivileged']>[0]) {
    this.registeredBeforeReady = !this.ready;
    this.privileged.push(...schemes);
  }
  handle(scheme: string, handler: (request: Request) => Promise<Response>) {
    if (this.handlers.has(scheme)) throw new Error(`second handler for ${scheme}`);
    this.handlers.set(scheme, handler);
  }
  unhandle(scheme: string) {
    this.handlers.delete(scheme);
  }
  /** What Electron does with a request for the scheme. */
  fetch(url: string, init?: RequestInit): Promise<Response> {
    const handler = this.handlers.get(new URL(url).protocol.slice(0, -1));
    if (!handler) throw new Error(`no handler for ${url}`);
    return handler(new Request(url, init));
  }
}

const APP = 'http://127.0.0.1:4321';

describe('window options', () => {
  const options = windowOptions('/app/dist/preload/index.cjs', { development: false });
  test('DevTools only in a development run, never in a packaged app', () => {
    expect(options.webPreferences?.devTools).toBe(false);
    const dev = windowOptions('/app/dist/preload/index.cjs', { development: true });
    expect(dev.webPreferences?.devTools).toBe(true);
  });
  test('isolate the page: context isolation, sandbox, no Node, web security, no webview', () => {
    expect(options.webPreferences).toMatchObject({
      preload: '/app/dist/preload/index.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
    });
  });
  test('the window shows only once its page is ready', () => {
    expect(options.show).toBe(false);
  });
});

describe('hardenContents', () => {
  const contents = new FakeContents();
  hardenContents(contents, () => APP);

  test('blocks navigation and redirects away from the app, allows it within', () => {
    expect(contents.fire('will-navigate', 'https://example.com/')).toBe(true);
    expect(contents.fire('will-navigate', 'file:///etc/passwd')).toBe(true);
    expect(contents.fire('will-redirect', 'http://127.0.0.1:9999/')).toBe(true);
    expect(contents.fire('will-navigate', `${APP}/index.html`)).toBe(false);
  });
  test('denies every new window and webview', () => {
    expect(contents.openHandler?.({ url: `${APP}/` })).toEqual({ action: 'deny' });
    expect(contents.openHandler?.({ url: 'https://example.com/' })).toEqual({ action: 'deny' });
    expect(contents.fire('will-attach-webview')).toBe(true);
  });
  test('blocks all navigation before the app has an origin', () => {
    const early = new FakeContents();
    hardenContents(early, () => undefined);
    expect(early.fire('will-navigate', `${APP}/`)).toBe(true);
  });
});

describe('restrictPermissions', () => {
  const session = new FakeSession();
  restrictPermissions(session, () => APP);

  test('grants what playback needs to the app only', () => {
    expect([...ALLOWED_PERMISSIONS].sort()).toEqual(['fullscreen', 'mediaKeySystem']);
    expect(session.ask('mediaKeySystem', { requestingUrl: `${APP}/` })).toBe(true);
    expect(session.ask('fullscreen', { requestingUrl: `${APP}/x` })).toBe(true);
    expect(session.ask('mediaKeySystem', { requestingUrl: 'https://example.com/' })).toBe(false);
    expect(session.ask('mediaKeySystem', {})).toBe(false);
  });
  test.each([
    'media',
    'geolocation',
    'notifications',
    'clipboard-read',
    'openExternal',
    'hid',
    'serial',
  ])('denies %s even to the app', (permission) => {
    expect(session.ask(permission, { requestingUrl: `${APP}/` })).toBe(false);
    expect(session.check?.({}, permission, APP)).toBe(false);
  });
  test('permission checks follow the same rule', () => {
    expect(session.check?.({}, 'mediaKeySystem', APP)).toBe(true);
    expect(session.check?.({}, 'mediaKeySystem', 'https://example.com')).toBe(false);
  });
});

describe('registerIpc', () => {
  const calls: unknown[][] = [];
  const api: DemoApi = {
    getSetup: async () => ({ ok: true, value: {} as never }),
    preparePlay: async (...args) => {
      calls.push(args);
      return { ok: true, value: {} as never };
    },
    setRealService: async () => ({ ok: true, value: {} as never }),
  };
  const ipc = new FakeIpcMain();
  const trusted: IpcEventLike = { sender: { id: 7 }, senderFrame: { url: `${APP}/` } };
  const unregister = registerIpc(ipc, api, (event) => event.sender.id === 7);

  test("registers exactly the contract's channels", () => {
    expect([...ipc.handlers.keys()].sort()).toEqual(
      Object.values(CALLS)
        .map((c) => c.channel)
        .sort(),
    );
  });
  test('answers FORBIDDEN_SENDER to any other sender, without calling the API', async () => {
    const result = await ipc.invoke(
      CALLS.preparePlay.channel,
      { sender: { id: 8 }, senderFrame: null },
      {},
    );
    expect(result).toMatchObject({ ok: false, error: { code: 'FORBIDDEN_SENDER' } });
    expect(calls).toEqual([]);
  });
  test('validates arguments before the call: extra members and wrong types are refused', async () => {
    const request = {
      mode: 'token',
      player: 'shaka',
      userId: 'member-alice',
      cid: 'c',
      policy: {
        limit: true,
        timeRule: 'none',
        persistent: false,
        hdcp: null,
        securityLevel: null,
        externalKey: false,
      },
    };
    const extra = await ipc.invoke(CALLS.preparePlay.channel, trusted, {
      ...request,
      siteKey: 'x',
    });
    expect(extra).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST' } });
    const wrong = await ipc.invoke(CALLS.preparePlay.channel, trusted, {
      ...request,
      userId: 'a b',
    });
    expect(wrong.ok ? '' : wrong.error.message).toMatch(/^User: /);
    const twoArgs = await ipc.invoke(CALLS.getSetup.channel, trusted, 'surplus');
    expect(twoArgs.ok).toBe(false);
    expect(calls).toEqual([]);
    expect((await ipc.invoke(CALLS.preparePlay.channel, trusted, request)).ok).toBe(true);
    expect(calls).toEqual([[request]]);
  });
  test('the undo removes every handler', () => {
    unregister();
    expect(ipc.handlers.size).toBe(0);
  });
});

describe('runDemoApp with a fake Electron', () => {
  const created: { options: unknown; window: FakeWindow }[] = [];
  const appEvents = new Map<string, Listener[]>();
  let quits = 0;
  class FakeWindow implements WindowLike {
    readonly webContents = new FakeContents();
    loaded: string[] = [];
    shown = false;
    private ready: (() => void) | undefined;
    constructor(options: unknown) {
      created.push({ options, window: this });
      for (const listener of appEvents.get('web-contents-created') ?? [])
        listener({} as never, this.webContents as never);
    }
    async loadURL(url: string) {
      this.loaded.push(url);
      this.ready?.();
    }
    once(_event: 'ready-to-show', listener: () => void) {
      this.ready = listener;
      return this;
    }
    show() {
      this.shown = true;
    }
  }
  const ipc = new FakeIpcMain();
  const session = new FakeSession();
  const protocol = new FakeProtocol();
  const devWindow = (preload: string) => windowOptions(preload, { development: true });
  const electron: ElectronLike<ReturnType<typeof windowOptions>> = {
    app: {
      whenReady: async () => void (protocol.ready = true),
      on: (event: string, listener: Listener) => {
        appEvents.set(event, [...(appEvents.get(event) ?? []), listener]);
      },
      quit: () => void quits++,
    },
    BrowserWindow: FakeWindow,
    ipcMain: ipc,
    protocol,
    session: { defaultSession: session },
  };
  let running: RunningDemoApp;
  let test_stack: Awaited<ReturnType<typeof startTestStack>> | undefined;

  beforeAll(async () => {
    running = await runDemoApp(electron, {
      preloadPath: '/app/dist/preload/index.cjs',
      stack: { rendererDir: '/unused', contentDir: '/unused' },
      windowOptions: devWindow,
      // The real stack, with a stand-in page: only the renderer directory differs.
      startStack: async (options) => {
        expect(options.shell).toBe('electron');
        test_stack = await startTestStack('electron');
        return test_stack.stack;
      },
    });
  });
  afterAll(async () => {
    await running?.shutdown();
    await test_stack?.close();
  });

  test("opens one window with the hardened options and loads the stack's page", () => {
    expect(created).toHaveLength(1);
    expect(created[0]?.options).toEqual(devWindow('/app/dist/preload/index.cjs'));
    expect(created[0]?.window.loaded).toEqual([`${APP_ORIGIN}/`]);
    expect(running.stack.url).toBe(APP_ORIGIN);
    expect(created[0]?.window.shown).toBe(true);
  });

  test('gives its scheme the privileges of a secure standard origin before the app is ready, and no CSP bypass', () => {
    expect(protocol.registeredBeforeReady).toBe(true);
    expect(protocol.privileged).toEqual([
      { scheme: APP_SCHEME, privileges: APP_SCHEME_PRIVILEGES },
    ]);
    expect(APP_SCHEME_PRIVILEGES).toEqual({
      standard: true,
      secure: true,
      supportFetchAPI: true,
      corsEnabled: true,
      stream: true,
    });
    expect(APP_SCHEME_PRIVILEGES).not.toHaveProperty('bypassCSP');
  });

  test('its protocol handler serves the page with its CSP, and the site to the page only', async () => {
    const page = await protocol.fetch(`${APP_ORIGIN}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toBe(running.stack.csp());
    expect(await page.text()).toContain('<title>multidrm demo</title>');
    const token = (origin?: string) =>
      protocol.fetch(`${APP_ORIGIN}/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(origin === undefined ? {} : { origin }),
        },
        body: JSON.stringify({ cid: 'free-sample', drm_type: 'Widevine' }),
      });
    // The site answers the page (here: nobody has signed in yet).
    expect((await token(APP_ORIGIN)).status).toBe(401);
    for (const origin of [undefined, 'http://127.0.0.1:4321', 'null', 'multidrm-demo://other']) {
      const refused = await token(origin);
      expect(refused.status, String(origin)).toBe(403);
      expect(await refused.text()).toMatch(/^FORBIDDEN_ORIGIN: /);
    }
    // The gateways are the emulator's business, on loopback: not on the scheme.
    expect((await protocol.fetch(`${APP_ORIGIN}/gateway`, { method: 'POST' })).status).toBe(404);
    // Another host of the scheme is nothing.
    expect((await protocol.fetch('multidrm-demo://elsewhere/')).status).toBe(404);
    expect((await protocol.fetch(`${APP_ORIGIN}/../../etc/passwd`)).status).toBe(404);
  });

  test("hardens the window's contents and the session", () => {
    const contents = created[0]!.window.webContents;
    expect(contents.fire('will-navigate', 'https://example.com/')).toBe(true);
    expect(contents.fire('will-navigate', `${running.stack.url}/`)).toBe(false);
    // The loopback servers are not the app: neither navigation nor permissions reach them.
    expect(contents.fire('will-navigate', `${running.stack.loopbackUrl}/`)).toBe(true);
    expect(contents.fire('will-navigate', 'multidrm-demo://other/')).toBe(true);
    expect(session.ask('mediaKeySystem', { requestingUrl: `${running.stack.loopbackUrl}/` })).toBe(
      false,
    );
    expect(contents.openHandler?.({ url: 'https://example.com/' })).toEqual({ action: 'deny' });
    expect(session.ask('mediaKeySystem', { requestingUrl: `${running.stack.url}/` })).toBe(true);
    expect(session.ask('geolocation', { requestingUrl: `${running.stack.url}/` })).toBe(false);
  });

  test("answers IPC from its window's page only", async () => {
    const id = created[0]!.window.webContents.id;
    const fromPage = await ipc.invoke(CALLS.getSetup.channel, {
      sender: { id },
      senderFrame: { url: `${running.stack.url}/` },
    });
    expect(fromPage).toMatchObject({ ok: true, value: { shell: 'electron' } });
    const otherWindow = await ipc.invoke(CALLS.getSetup.channel, {
      sender: { id: id + 100 },
      senderFrame: { url: `${running.stack.url}/` },
    });
    expect(otherWindow).toMatchObject({ ok: false, error: { code: 'FORBIDDEN_SENDER' } });
    const otherOrigin = await ipc.invoke(CALLS.getSetup.channel, {
      sender: { id },
      senderFrame: { url: 'https://example.com/' },
    });
    expect(otherOrigin).toMatchObject({ ok: false, error: { code: 'FORBIDDEN_SENDER' } });
  });

  test('quits when the window closes, and stops the stack on quit', async () => {
    for (const listener of appEvents.get('window-all-closed') ?? []) listener();
    expect(quits).toBe(1);
    for (const listener of appEvents.get('will-quit') ?? []) listener();
    await running.shutdown();
    expect(ipc.handlers.size).toBe(0);
    expect(protocol.handlers.size).toBe(0);
    await expect(fetch(`${running.stack.loopbackUrl}/gateway`)).rejects.toThrow();
  });
});

test('startDemoStack names the missing sample content', async () => {
  await expect(
    startDemoStack({ rendererDir: '/nowhere', contentDir: '/nowhere/content', shell: 'web' }),
  ).rejects.toThrow(/pnpm content/);
});
