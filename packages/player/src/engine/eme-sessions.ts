/**
 * The EME sessions of every player on the page, as the renewal driver needs them: which key system
 * made each `MediaKeys`, and each session's init data. No player hands these out (hls.js, dash.js
 * and video.js keep their sessions to themselves), so the recorder wraps two EME methods on their
 * prototypes, once per page; the wrappers only remember and call the browser's own.
 */
import { toBytes } from './bytes.ts';

// The EME members the recorder and the driver use, named here: the repository's type check runs
// without the DOM library.
/** The bytes EME methods take. */
export type EmeBytes = ArrayBuffer | ArrayBufferView<ArrayBuffer>;
export interface EmeSession {
  readonly closed: Promise<unknown>;
  /** Empty until the session holds a license. */
  readonly keyStatuses: { readonly size: number };
  generateRequest(initDataType: string, initData: EmeBytes): Promise<void>;
  update(response: EmeBytes): Promise<void>;
  close(): Promise<void>;
  addEventListener(
    type: 'message',
    listener: (event: { message: ArrayBuffer }) => void,
    options?: { once: boolean },
  ): void;
}
export interface EmeKeys {
  createSession(type?: 'temporary' | 'persistent-license'): EmeSession;
}
/** What the browser granted of a key system configuration. */
export interface EmeConfiguration {
  persistentState?: string;
}
export interface EmeAccess {
  readonly keySystem: string;
  getConfiguration(): EmeConfiguration;
  createMediaKeys(): Promise<EmeKeys>;
}

export interface RecordedSession {
  readonly session: EmeSession;
  readonly initDataType: string;
  readonly initData: Uint8Array<ArrayBuffer>;
  /** Settles when the session closes (by its player, by the driver, or by the CDM). */
  closed: boolean;
}

export interface RecordedKeys {
  keySystem: string;
  /** The configuration the browser granted (`persistentState`, `sessionTypes`). */
  configuration: EmeConfiguration | undefined;
  sessions: Set<RecordedSession>;
}

/** The EME classes the recorder wraps: the page's, or stand-ins in tests. */
export interface EmeClasses {
  MediaKeySystemAccess: { prototype: EmeAccess };
  MediaKeys: { prototype: EmeKeys };
}

const keysOf = new WeakMap<EmeKeys, RecordedKeys>();
const installed = new WeakSet<object>();

/** Starts recording on these classes (the page's by default); a second call does nothing. */
export function recordEmeSessions(
  classes: Partial<EmeClasses> = globalThis as Partial<EmeClasses>,
): boolean {
  const { MediaKeySystemAccess: Access, MediaKeys: Keys } = classes;
  if (!Access || !Keys) return false;
  if (installed.has(Keys.prototype)) return true;
  installed.add(Keys.prototype);

  const createMediaKeys = Access.prototype.createMediaKeys;
  Access.prototype.createMediaKeys = async function (this: EmeAccess) {
    const keys = await createMediaKeys.call(this);
    let configuration: EmeConfiguration | undefined;
    try {
      configuration = this.getConfiguration();
    } catch {
      // Not known: the driver says so where it matters (Widevine).
    }
    keysOf.set(keys, { keySystem: this.keySystem, configuration, sessions: new Set() });
    return keys;
  };

  const createSession = Keys.prototype.createSession;
  Keys.prototype.createSession = function (this: EmeKeys, type) {
    const session = createSession.call(this, type);
    const keys = keysOf.get(this);
    if (!keys) return session;
    const generateRequest = session.generateRequest;
    session.generateRequest = function (initDataType: string, initData: EmeBytes) {
      const record: RecordedSession = {
        session,
        initDataType,
        // A copy: the player may reuse its buffer.
        initData: new Uint8Array(toBytes(initData)),
        closed: false,
      };
      keys.sessions.add(record);
      const forget = () => {
        record.closed = true;
        keys.sessions.delete(record);
      };
      void session.closed.then(forget, forget);
      return generateRequest.call(session, initDataType, initData);
    };
    return session;
  };
  return true;
}

/** What the recorder knows of these media keys (created while it recorded), else `undefined`. */
export const recordedKeys = (keys: EmeKeys | null | undefined): RecordedKeys | undefined =>
  keys ? keysOf.get(keys) : undefined;
