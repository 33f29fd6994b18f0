import { toBytes, type BufferLike } from './bytes.ts';
import { LicenseAuthError } from './errors.ts';
import { createEmitter, type EngineEvents, type Emitter } from './events.ts';
import type { PrefetchOptions } from './handle.ts';
import { unwrapCkc } from './fairplay.ts';
import { headerRequired, isLocalUrl } from './header-check.ts';
import {
  challengeContentType,
  drmTypeFor,
  isFairPlay,
  SERVER_KEY_SYSTEMS,
  type DrmType,
} from './key-systems.ts';
import { readLicenseAnswer } from './license-answer.ts';
import type { ResolvedOptions } from './options.ts';
import { proxyUrl } from './proxy.ts';
import { toServiceError, type ServiceErrorBody } from './service-error.ts';
import { openSession, trackPlayerLoads, type LoadSession, type PlayerLoads } from './session.ts';
import {
  axiosPost,
  createSiteFetcher,
  fetchPost,
  renewalSeconds,
  withTokenDeadline,
} from './site-client.ts';
import { createTokenCache, type CachedToken } from './token-cache.ts';

/**
 * One license request across its attempts, as plain data: an adapter keeps it beside its player's
 * request object (and copies it for a re-send).
 */
export interface LicenseExchange {
  keySystem: string;
  drmType: DrmType;
  cid: string;
  /** The load the request belongs to: its end drops the request. */
  session: LoadSession;
  /** The EME message type (`license-request`, `license-renewal`, ...), `null` when not known. */
  type: string | null;
  token?: string;
  /** When the request last went out; `undefined` once its answer was reported. */
  sentAt?: number;
  /**
   * A fresh token was tried for this license request already (the cached one was forgotten when
   * it was refused): the next refusal is final.
   */
  renewed?: boolean;
  /** The service refused for good; sending again would only fail again. */
  refused?: LicenseAuthError;
  /**
   * Not the load's first license request, or a `license-renewal`: a key rotation or a renewal,
   * whose token is retried within `retry.renewalWindowMs` (playback is running).
   */
  renewal: boolean;
}

/** The emulator's stream ID header (its README, Streams): sent to local license servers only. */
export const STREAM_ID_HEADER = 'x-drm-stream-id';

/** The EME message type of a license renewal. */
export const RENEWAL = 'license-renewal';

export interface Engine<E extends EngineEvents = EngineEvents> {
  readonly options: ResolvedOptions;
  readonly emitter: Emitter<E>;
  /**
   * A reusable token for the cid and drm_type, else one shared fetch (retried within
   * `retry.renewalWindowMs` for a `renewal`, else `retry.windowMs`); `signal` ends the wait.
   * `fresh`: never the cached token (a renewal driver's fresh token per renewal); a fetch under
   * way is shared, and the token it brings is cached for the requests after it.
   */
  getToken(
    cid: string,
    drmType: DrmType,
    signal?: AbortSignal,
    renewal?: boolean,
    fresh?: boolean,
  ): Promise<CachedToken>;
  /** Opens a load session (a preload, a download); ended by its owner, or by `destroy()`. */
  open(cid?: string): LoadSession;
  /** The player's own loads, one after the other. */
  loads: PlayerLoads;
  /** Forgets every token; a wait for a fetch under way (aborted) asks the site again. */
  clearTokens(): void;
  /** License server URL per key system, from `licenseServer` (one URL: every built-in key system). */
  servers: Readonly<Record<string, string>>;
  /** Throws `INVALID_OPTIONS` for the first URL that is not local while no `header` was given. */
  checkHeader(urls: Iterable<string>): void;
  /**
   * Fetches the token for the coming license request of `session`: for the key system asked, else
   * the one a license request used last, else the only one of `configured` with a drm_type; and
   * for the cid asked, else the session's, else `contentId`. `false` when the key system or cid is
   * not known yet. A failure is not kept: the license request asks the site again.
   */
  prefetch(
    request: PrefetchOptions,
    configured: readonly string[],
    session: LoadSession,
  ): Promise<boolean>;
  /** A license request of `session`, of the EME message type `type` (`null`: not known). */
  begin(
    keySystem: string,
    drmType: DrmType,
    cid: string,
    session: LoadSession,
    type: string | null,
  ): LicenseExchange;
  /**
   * Attaches a token to `headers` (a fresh one after a 401/403) and reports the request sent. In
   * proxy mode it attaches none and resolves the URL to send to instead (the proxy's, with
   * `?drmType=&cid=`), with the page's cookies.
   */
  authorize(
    x: LicenseExchange,
    headers: Record<string, string>,
    attempt: number,
    url: string,
  ): Promise<string | undefined>;
  /**
   * Seconds between renewals: the `renewal.intervalSec` option, else the site's last
   * `x-renewal-interval` answer; `undefined` when neither says.
   */
  renewalIntervalSec(): number | undefined;

  /**
   * Reads a 2xx answer before the CDM: the license as the CDM takes it, or `null` when a fresh
   * token can fix the refusal (the token is forgotten; send the request once more). Throws the
   * refusal as a `LicenseServiceError`. Reports the answer either way.
   */
  /**
   * `interval`: the answer's `x-renewal-interval`; in proxy mode the proxy's answer carries the
   * interval its token's policy set, as the token endpoint's does otherwise.
   */
  read(
    x: LicenseExchange,
    status: number,
    data: BufferLike,
    url: string,
    interval?: string | null,
  ): BufferLike | null;
  /** Reports the answer to the request last sent (once), with the error it turned into. */
  report(x: LicenseExchange, status: number | undefined, error?: LicenseAuthError): void;
  /**
   * A fresh token may fix this answer, and none was tried for the request yet: marks the request
   * `renewed` and forgets its token (send it once more); `false` otherwise.
   */
  refresh(x: LicenseExchange, body: ServiceErrorBody | null, status?: number): boolean;
  destroy(): void;
}

/** What an event says of the license request it is about. */
const about = ({ keySystem, drmType, cid }: LicenseExchange) => ({ keySystem, drmType, cid });

/** Preloads and downloads open at once, at most (each holds its cid and waits). */
const MAX_OPEN = 32;

/** The player-agnostic core every adapter converts its player's hooks to. */
export function createEngine<E extends EngineEvents = EngineEvents>(
  opts: ResolvedOptions,
): Engine<E> {
  const emitter = createEmitter<E>();
  const emit = emitter.emit as Emitter<EngineEvents>['emit'];
  const cache = createTokenCache({
    lifetimeMs: opts.tokenLifetimeMs,
    minRemainingMs: opts.tokenMinRemainingMs,
    now: opts.now,
  });
  const source = opts.url ?? (opts.kind === 'token' ? 'getToken()' : 'getCustomData()');
  // The renewal interval the site's last answer named (`x-renewal-interval`), if any did.
  let siteInterval: number | undefined;
  const heard = (header: unknown) => (siteInterval = renewalSeconds(header) ?? siteInterval);
  const fetchToken = withTokenDeadline(
    opts.fetcher ??
      createSiteFetcher(
        opts.axios ? axiosPost(opts.axios) : fetchPost(opts.fetch),
        source,
        opts.kind,
        opts.retry,
        heard,
      ),
    source,
    opts.kind,
    opts.tokenTimeoutMs,
  );
  const keyOf = (cid: string, drmType: DrmType) => `${drmType}\n${cid}`;

  const { windowMs, renewalWindowMs } = opts.retry;
  // The reason of the last clearTokens(): a fetch it aborted is no failure, and a wait it cut
  // short asks again, with the cookies of the user signed in now.
  let cleared: unknown;
  const getToken = async (
    cid: string,
    drmType: DrmType,
    waitSignal?: AbortSignal,
    renewal?: boolean,
    fresh?: boolean,
  ): Promise<CachedToken> => {
    const before = cleared;
    try {
      return await cache.get(
        keyOf(cid, drmType),
        async (signal) => {
          const base = { cid, drmType, kind: opts.kind };
          const startedAt = opts.now();
          emit('tokenRequested', base);
          try {
            const value = await fetchToken(
              cid,
              drmType,
              signal,
              renewal ? renewalWindowMs : windowMs,
              renewal ? renewalWindowMs : 0,
            );
            emit('tokenReceived', { ...base, durationMs: opts.now() - startedAt });
            return value;
          } catch (error) {
            // A fetch that no load waits for any more (the app moved on, the handle was detached)
            // or that clearTokens() aborted reports nothing: a dropped load is no error, on every
            // player. withTokenDeadline rejects with LicenseAuthErrors only.
            if (!signal.aborted) {
              emit('tokenFailed', {
                ...base,
                durationMs: opts.now() - startedAt,
                error: error as LicenseAuthError,
              });
            }
            throw error;
          }
        },
        waitSignal,
        fresh,
      );
    } catch (error) {
      if (before === cleared || waitSignal?.aborted) throw error;
      return getToken(cid, drmType, waitSignal, renewal, fresh);
    }
  };

  // Sessions open, oldest first. A preload the app never plays stays open: past MAX_OPEN, the
  // oldest ends (quietly), never the player's own load (nor the preload it takes).
  const sessions = new Set<LoadSession>();
  const open = (cid?: string): LoadSession => {
    for (const old of sessions) {
      if (sessions.size < MAX_OPEN) break;
      if (!old.player) old.end('Too many loads open.');
    }
    const session = openSession(cid, () => sessions.delete(session));
    sessions.add(session);
    return session;
  };
  let lastKeySystem: string | undefined;

  const licenseServer = opts.licenseProxy ?? opts.licenseServer;
  const servers =
    typeof licenseServer === 'string'
      ? Object.fromEntries(
          [...SERVER_KEY_SYSTEMS, ...Object.keys(opts.drmTypes)].map((ks) => [ks, licenseServer]),
        )
      : (licenseServer ?? {});

  const loads = trackPlayerLoads(open);

  const engine: Engine<E> = {
    options: opts,
    emitter,
    getToken,
    open,
    loads,
    clearTokens() {
      cleared = new LicenseAuthError('ABORTED', 'clearTokens()');
      cache.clear(cleared);
    },
    servers,
    checkHeader(urls) {
      if (opts.headerGiven || opts.licenseProxy) return;
      for (const url of urls) if (!isLocalUrl(url)) throw headerRequired(url);
    },
    async prefetch({ keySystem: asked, contentId }, configured, session) {
      const known = configured.filter((ks) => drmTypeFor(ks, opts.drmTypes));
      const keySystem = asked ?? lastKeySystem ?? (known.length === 1 ? known[0] : undefined);
      const drmType = keySystem && drmTypeFor(keySystem, opts.drmTypes);
      const cid = contentId ?? session.cid ?? opts.contentId;
      // Proxy mode: the proxy makes the token for each request; there is nothing to fetch ahead.
      if (!cid || !drmType || session.ended || opts.licenseProxy) return false;
      await getToken(cid, drmType, session.signal);
      return true;
    },
    renewalIntervalSec: () => opts.renewal?.intervalSec ?? siteInterval,
    begin(keySystem, drmType, cid, session, type) {
      // A load that made a license request already: this one is a key rotation or a renewal.
      const renewal = session.used !== undefined || type === RENEWAL;
      session.used = cid;
      return { keySystem, drmType, cid, session, type, renewal };
    },
    async authorize(x, headers, attempt, url) {
      const startedAt = opts.now();
      lastKeySystem = x.keySystem;
      const proxy = opts.licenseProxy;
      // A renewal proves the stream still plays now: never with a token an earlier request used.
      const token = proxy
        ? undefined
        : await getToken(x.cid, x.drmType, x.session.signal, x.renewal, x.type === RENEWAL);
      if (token) {
        headers[opts.header] = token.value;
        // The emulator's stream identity: an extra header the real service's CORS would refuse.
        if (isLocalUrl(url)) headers[STREAM_ID_HEADER] = x.session.id ??= crypto.randomUUID();
      }
      const contentType = challengeContentType(x.keySystem);
      if (contentType) {
        // One Content-Type, whatever case the player or the CDM wrote it in.
        for (const name of Object.keys(headers))
          if (name.toLowerCase() === 'content-type') delete headers[name];
        headers['Content-Type'] = contentType;
      }
      x.token = token?.value;
      x.sentAt = opts.now();
      emit('licenseRequestSent', {
        ...about(x),
        attempt,
        tokenWaitMs: x.sentAt - startedAt,
        tokenSource: token?.source ?? 'proxy',
        licenseRequestType: x.type,
        refreshed: !!x.renewed,
      });
      return proxy && proxyUrl(proxy, x.drmType, x.cid);
    },

    read(x, status, data, url, interval) {
      if (opts.licenseProxy) heard(interval);
      // Reported however it ends: with the refusal, or the error reading it turned into.
      let error: LicenseAuthError | undefined;
      try {
        const { refusal, license = data } = readLicenseAnswer(data, x.keySystem, x.drmType);
        if (refusal) {
          error = toServiceError(x, refusal, status, url);
          if (!engine.refresh(x, refusal)) throw error;
          return null;
        }
        return isFairPlay(x.keySystem) ? unwrapCkc(toBytes(license)) : license;
      } catch (thrown) {
        throw (error = thrown as LicenseAuthError);
      } finally {
        engine.report(x, status, error);
      }
    },
    report(x, status, error) {
      const { sentAt } = x;
      if (sentAt === undefined) return;
      x.sentAt = undefined;
      emit('licenseAnswered', {
        ...about(x),
        status,
        durationMs: opts.now() - sentAt,
        ...(error && { error }),
      });
    },
    // Proxy mode: a 401/403 is the site's decision, which a re-send would not change; a service
    // refusal a fresh token fixes (7011) is sent once more, and the proxy makes a fresh token for it.
    refresh(x, body, status) {
      if (
        x.renewed ||
        !(
          ((status === 401 || status === 403) && !opts.licenseProxy) ||
          // No body: undefined, which no code of them is.
          opts.freshTokenCodes.includes(body?.errorCode!)
        )
      )
        return false;
      x.renewed = true;
      cache.invalidate(keyOf(x.cid, x.drmType), x.token);
      return true;
    },
    destroy() {
      const why = 'The license auth handle was detached.';
      // A session leaves the set as it ends, which a Set's iteration allows.
      for (const session of sessions) session.end(why, false);
      cache.destroy();
      emitter.clear();
    },
  };
  return engine;
}

/**
 * The cid of a license request: the one the app named for its load, `contentId`, what
 * `getContentId` returns (`fromApp` asks it, and is `undefined` without one), or an `skd://` URI.
 */
export async function resolveContentId(
  opts: ResolvedOptions,
  session: LoadSession,
  keySystem: string,
  fromApp: () => string | undefined | Promise<string | undefined>,
  fromSkd: () => string | null | undefined,
): Promise<string> {
  const cid =
    session.cid ??
    opts.contentId ??
    (await fromApp()) ??
    (isFairPlay(keySystem) ? fromSkd() : undefined);
  if (!cid) {
    throw new LicenseAuthError(
      'NO_CONTENT_ID',
      `No content ID for the ${keySystem} license request: name the asset with load(contentId) before the player loads it, set contentId, or make getContentId return one.`,
    );
  }
  return cid;
}
