import { toBytes, utf8, type BufferLike } from './bytes.ts';
import { LicenseAuthError } from './errors.ts';
import { spcFormBody } from './fairplay.ts';
import type { Engine } from './engine.ts';
import { isFairPlay, type DrmType } from './key-systems.ts';
import type { LoadSession } from './session.ts';
import { playReadyChallenge } from './playready.ts';
import { proxyFailure } from './proxy.ts';
import { parseServiceError, toServiceError } from './service-error.ts';
import { retryWait, sleep, withDeadline } from './retry.ts';
import { RENEWAL_INTERVAL_HEADER } from './site-client.ts';

export interface LicenseRequestInit {
  keySystem: string;
  drmType: DrmType;
  cid: string;
  url: string;
  /** The CDM's message (FairPlay: the SPC; PlayReady: wrapped or not; dash.js ClearKey: text). */
  body: BufferLike | string;
  /** Headers the player would have sent (the app's, PlayReady's own). */
  headers?: Record<string, string>;
  /** Cookies as the player would have sent them (`include` where the app asked for credentials). */
  credentials?: 'include' | 'same-origin' | 'omit';
  licenseRequestType: string | null;
  /** The load the request belongs to: its end aborts the request. */
  session: LoadSession;
}

/**
 * Sends a license request with the token, reads the answer before the CDM, and sends it once more
 * with a fresh token when a fresh token can fix the refusal; retries what `retry` names. Resolves
 * with the license as the CDM takes it; rejects with this package's errors only (when its session
 * ended: `ABORTED`, and `session.movedOn` says whether that is no error at all).
 */
export type LicenseSender = (init: LicenseRequestInit) => Promise<Uint8Array>;

/**
 * License requests for players whose hooks cannot re-send (hls.js, dash.js, video.js): the adapter
 * hands the CDM's message over and gets the license back, sent with `fetch`.
 */
export function createLicenseSender(engine: Engine): LicenseSender {
  const { options: opts } = engine;

  return async (init) => {
    const { keySystem, url, licenseRequestType } = init;
    engine.checkHeader([url]);
    const message = typeof init.body === 'string' ? utf8(init.body) : toBytes(init.body);
    const wrapped = init.drmType === 'PlayReady' ? playReadyChallenge(message) : null;
    const body = isFairPlay(keySystem) ? spcFormBody(message) : (wrapped?.body ?? message);
    const x = engine.begin(keySystem, init.drmType, init.cid, init.session, licenseRequestType);
    const failed = (what: string) =>
      new LicenseAuthError(
        'LICENSE_REQUEST_FAILED',
        `${what} for the ${x.drmType} license of cid "${x.cid}": check the license server URL, that it is up, and its CORS rules.`,
      );
    // A renewal's token may take its retry window: the deadline grows by it.
    const ms = opts.licenseTimeoutMs + (x.renewal ? opts.retry.renewalWindowMs : 0);
    const timeout = () =>
      new LicenseAuthError(
        'LICENSE_REQUEST_FAILED',
        `No license from ${url} within ${ms} ms for cid "${x.cid}": raise licenseTimeoutMs or check the license server.`,
      );

    return withDeadline(ms, timeout, init.session.signal, async (signal, race) => {
      for (let attempt = 0, failures = 0; ; attempt++) {
        const headers: Record<string, string> = { ...init.headers, ...wrapped?.headers };
        // A token fetch is shared with other requests, so it is not aborted for this one: the wait is.
        // Proxy mode: the proxy's URL, and the page's cookies, by which the site decides.
        const proxied = await race(engine.authorize(x, headers, attempt, url));
        const to = proxied ?? url;
        let status: number | undefined;
        let refusal = null;
        let error: LicenseAuthError;
        try {
          const res = await (opts.fetch ?? fetch)(to, {
            method: 'POST',
            body: body as Uint8Array<ArrayBuffer>,
            headers,
            signal,
            credentials: proxied ? 'include' : init.credentials,
          });
          const data = new Uint8Array(await res.arrayBuffer());
          if (res.status >= 200 && res.status < 300) {
            const license = engine.read(
              x,
              res.status,
              data,
              to,
              res.headers?.get(RENEWAL_INTERVAL_HEADER),
            );
            if (license) return toBytes(license);
            continue;
          }
          status = res.status;
          // Proxy mode: the proxy's own failure (its service refusals are relayed as they came).
          const own = proxied ? proxyFailure(data, status, to, x) : undefined;
          refusal = own ? null : parseServiceError(data);
          error =
            own ??
            (refusal
              ? toServiceError(x, refusal, status, to)
              : failed(`The license server ${to} answered HTTP ${status}`));
          if (engine.refresh(x, refusal, status)) {
            engine.report(x, status, refusal ? error : undefined);
            continue;
          }
        } catch (thrown) {
          if (signal.aborted) throw signal.reason;
          // engine.read throws this package's errors: the answer was read, and reported.
          if (thrown instanceof LicenseAuthError) throw thrown;
          error = failed(`No answer from the license server ${to} (${String(thrown)})`);
        }
        const wait = refusal ? undefined : retryWait(opts.retry, ++failures, status);
        engine.report(x, status, wait === undefined ? error : undefined);
        if (wait === undefined) throw error;
        await sleep(wait, signal);
      }
    }).catch((error: unknown) => {
      const reason =
        error instanceof LicenseAuthError
          ? error
          : failed(`The license request to ${url} failed (${String(error)})`);
      engine.report(x, undefined, reason);
      throw reason;
    });
  };
}
