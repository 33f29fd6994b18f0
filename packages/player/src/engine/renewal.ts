import { utf8 } from './bytes.ts';
import {
  recordedKeys,
  recordEmeSessions,
  type EmeConfiguration,
  type EmeKeys,
  type EmeSession,
  type RecordedSession,
} from './eme-sessions.ts';
import type { Engine } from './engine.ts';
import { LicenseAuthError, LicenseServiceError, TokenFetchError } from './errors.ts';
import { drmTypeFor, isFairPlay, type DrmType } from './key-systems.ts';
import type { LicenseRequestInit } from './license-request.ts';
import { findLicenseAuthError } from './find-error.ts';
import type { LoadSession } from './session.ts';

/** The `renewal` option of every adapter: when and how long the licenses of a load are renewed. */
export interface RenewalOptions {
  /**
   * Seconds between renewals of each license of a load. Default: the `x-renewal-interval` header of
   * the site's token endpoint answer (site-kit sends the token's `renewal_duration`); with neither,
   * nothing is renewed.
   */
  intervalSec?: number;
  /**
   * Renewals go on this long (seconds) while playback is paused, then wait for playback to resume
   * (the service stops counting the stream after its interval plus its grace). Default 300.
   */
  pausedLimitSec?: number;
  /** The same for a hidden page (a background tab). Default 300. */
  hiddenLimitSec?: number;
}

/** What the driver uses of the media element. */
export interface RenewalMedia {
  readonly mediaKeys: EmeKeys | null;
  readonly paused: boolean;
  pause?(): void;
  addEventListener(type: 'pause' | 'play', listener: () => void): void;
  removeEventListener(type: 'pause' | 'play', listener: () => void): void;
}

/** What a driver needs of its adapter: the load's media element and the player's way to stop. */
export interface RenewalHost {
  /** The media element of the load (its `mediaKeys` hold the load's sessions). */
  media(): RenewalMedia | null | undefined;
  /**
   * The service refused a renewal for good (a stream or period limit): stop the load the player's
   * way and hand the app `error`. The driver has stopped already.
   */
  refused(error: LicenseAuthError): void;
  /**
   * Sends a renewal's license request the way the player's own go (its hooks, the token, the
   * answer read before the CDM) and resolves with the license; rejects with the refusal.
   */
  send(init: LicenseRequestInit): Promise<Uint8Array>;
}

export interface RenewalDriver {
  stop(): void;
}

/** The page's visibility, where there is a page. */
interface PageDocument {
  visibilityState?: string;
  addEventListener(type: string, listener: () => void): void;
  removeEventListener(type: string, listener: () => void): void;
}

const WIDEVINE = 'com.widevine.alpha';
const DEFAULT_LIMIT_SEC = 300;

/** Refusals after which renewing again would only be refused again: the load stops. */
const isFinal = (error: unknown): error is LicenseAuthError =>
  error instanceof LicenseServiceError ||
  (error instanceof TokenFetchError && (error.status === 401 || error.status === 403));

/**
 * Renews every license of one load at the site's interval until the load ends: PlayReady, ClearKey
 * (and any other key system but these two) by a new session from the same init data on the
 * element's media keys, whose license request (`license-renewal`, a fresh token) replaces the old
 * session once its license is in; FairPlay by `update('renew')` on the player's own session, whose
 * request the player sends through the adapter; Widevine by its CDM (checked once for
 * `persistentState: 'required'`). One license is never renewed twice at once.
 */
export function startRenewal(
  engine: Engine,
  session: LoadSession,
  host: RenewalHost,
  page: PageDocument | undefined = (globalThis as { document?: PageDocument }).document,
): RenewalDriver {
  const { options: opts } = engine;
  const emit = engine.emitter.emit as Engine['emitter']['emit'];
  const settings = opts.renewal ?? {};
  const pausedLimitMs = (settings.pausedLimitSec ?? DEFAULT_LIMIT_SEC) * 1000;
  const hiddenLimitMs = (settings.hiddenLimitSec ?? DEFAULT_LIMIT_SEC) * 1000;
  const busy = new WeakSet<EmeSession>();
  const ours = new Set<EmeSession>();
  const warned = new Set<string>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  /** No renewal while idle past the limits: the next round waits for play or a visible page. */
  let parked = false;
  let lastRound = opts.now();
  let watched: RenewalMedia | null | undefined;
  let pausedAt: number | undefined;
  let hiddenAt: number | undefined = page?.visibilityState === 'hidden' ? opts.now() : undefined;

  recordEmeSessions();

  const schedule = () => {
    clearTimeout(timer);
    const sec = engine.renewalIntervalSec();
    if (stopped || parked || sec === undefined) return;
    const due = Math.max(0, lastRound + sec * 1000 - opts.now());
    timer = setTimeout(round, due);
  };

  const onPause = () => (pausedAt ??= opts.now());
  const onPlay = () => {
    pausedAt = undefined;
    wake();
  };
  const onVisibility = () => {
    if (page?.visibilityState === 'hidden') hiddenAt ??= opts.now();
    else {
      hiddenAt = undefined;
      wake();
    }
  };
  const wake = () => {
    if (!parked || idle()) return;
    parked = false;
    schedule();
  };
  const idle = () => {
    const now = opts.now();
    return (
      (pausedAt !== undefined && now - pausedAt >= pausedLimitMs) ||
      (hiddenAt !== undefined && now - hiddenAt >= hiddenLimitMs)
    );
  };
  const watch = (media: RenewalMedia | null | undefined) => {
    if (media === watched) return;
    watched?.removeEventListener('pause', onPause);
    watched?.removeEventListener('play', onPlay);
    watched = media;
    pausedAt = media?.paused ? opts.now() : undefined;
    media?.addEventListener('pause', onPause);
    media?.addEventListener('play', onPlay);
  };
  page?.addEventListener('visibilitychange', onVisibility);
  // A site whose interval comes with its tokens starts the clock at the first token; in proxy mode
  // it comes with the first license.
  const start = () => timer === undefined && schedule();
  const offToken = engine.emitter.on('tokenReceived', start);
  const offLicense = engine.emitter.on('licenseAnswered', start);

  function round() {
    if (stopped) return;
    const media = host.media();
    watch(media);
    if (idle()) {
      parked = true;
      return;
    }
    lastRound = opts.now();
    schedule();
    const keys = media?.mediaKeys;
    const recorded = recordedKeys(keys);
    if (!keys || !recorded) return;
    for (const record of [...recorded.sessions]) {
      // A session still waiting for its first license is the player's to finish, not to renew.
      if (busy.has(record.session) || record.closed || record.session.keyStatuses.size === 0) {
        continue;
      }
      void renew(keys, recorded.keySystem, record, recorded.configuration);
    }
  }

  async function renew(
    keys: EmeKeys,
    keySystem: string,
    record: RecordedSession,
    configuration: EmeConfiguration | undefined,
  ) {
    const drmType = drmTypeFor(keySystem, opts.drmTypes);
    if (!drmType) return;
    if (keySystem === WIDEVINE) {
      if (configuration?.persistentState !== 'required') {
        warn(
          keySystem,
          `The Widevine CDM renews its license itself only with persistentState: 'required' (granted: ${configuration?.persistentState ?? 'unknown'}): configure the player's key system with it, or the service's stream limit stops counting this stream.`,
        );
      }
      return;
    }
    const cid = session.cid ?? session.used ?? opts.contentId;
    const url = engine.servers[keySystem];
    if (!cid || (!url && !opts.licenseProxy)) {
      warn(
        keySystem,
        `No ${cid ? 'license server' : 'cid'} to renew the ${keySystem} license with.`,
      );
      return;
    }
    const what = { keySystem, drmType, cid };
    busy.add(record.session);
    try {
      if (isFairPlay(keySystem)) {
        // Safari asks for the renewal through the player's session: its request goes the usual way.
        await record.session.update(utf8('renew') as Uint8Array<ArrayBuffer>);
        if (!stopped) emit('licenseRenewed', { ...what, method: 'renew-message' });
        return;
      }
      if (await recreate(keys, record, keySystem, drmType, cid, url ?? '')) {
        emit('licenseRenewed', { ...what, method: 'new-session' });
      }
    } catch (error) {
      if (stopped || session.ended) return;
      const reason =
        findLicenseAuthError(error) ??
        new LicenseAuthError(
          'LICENSE_REQUEST_FAILED',
          `The ${drmType} license of cid "${cid}" could not be renewed (${String(error)}); the next renewal tries again.`,
          { cause: error },
        );
      const final = isFinal(reason);
      emit('renewalFailed', { ...what, error: reason, final });
      if (final) {
        // The buffered media must not play on beyond the service's verdict, whatever the player does.
        const media = host.media();
        stop();
        media?.pause?.();
        host.refused(reason);
      }
    } finally {
      busy.delete(record.session);
    }
  }

  /**
   * A new session on the same media keys, from the same init data, licensed with a fresh token;
   * the old session closes once the new one holds the keys, so playback never lacks them (the new
   * one closes instead when it does not, or when the driver stopped meanwhile). Says whether the
   * new session took over.
   */
  async function recreate(
    keys: EmeKeys,
    record: RecordedSession,
    keySystem: string,
    drmType: DrmType,
    cid: string,
    url: string,
  ): Promise<boolean> {
    const next = keys.createSession('temporary');
    let closing = next;
    ours.add(next);
    busy.add(next);
    try {
      // The end of the load stops the driver, which closes this session: no message comes then,
      // and nothing is left listening on the load.
      const message = new Promise<ArrayBuffer>((resolve) =>
        next.addEventListener('message', (event) => resolve(event.message), { once: true }),
      );
      await next.generateRequest(record.initDataType, record.initData);
      const license = await host.send({
        keySystem,
        drmType,
        cid,
        url,
        body: new Uint8Array(await message),
        licenseRequestType: 'license-renewal',
        session,
      });
      await next.update(license as Uint8Array<ArrayBuffer>);
      if (!stopped) {
        closing = record.session;
        record.closed = true;
      }
    } finally {
      busy.delete(next);
      await close(closing);
    }
    return closing !== next;
  }

  const close = (own: EmeSession) => {
    ours.delete(own);
    return own.close().catch(() => undefined);
  };

  const warn = (keySystem: string, message: string) => {
    if (warned.has(message)) return;
    warned.add(message);
    emit('renewalWarning', { keySystem, message });
  };

  function stop() {
    if (stopped) return;
    stopped = true;
    clearTimeout(timer);
    offToken();
    offLicense();
    watch(undefined);
    page?.removeEventListener('visibilitychange', onVisibility);
    // The player closes its own sessions; those the driver opened are the driver's to close.
    ours.forEach(close);
  }

  session.signal.addEventListener('abort', stop, { once: true });
  if (session.ended) stop();
  else schedule();
  return { stop };
}

/**
 * What an adapter calls when its player starts a load: one driver per load session (a player that
 * announces one load twice keeps its driver). Token and gateway modes; proxy mode renews the same
 * way, the proxy making each token.
 */
export function renewEachLoad(engine: Engine, host: RenewalHost): (session: LoadSession) => void {
  const driven = new WeakSet<LoadSession>();
  // From the attach on: a player may make its media keys before it announces its load.
  recordEmeSessions();
  return (session) => {
    if (driven.has(session) || session.ended) return;
    driven.add(session);
    startRenewal(engine, session, host);
  };
}
