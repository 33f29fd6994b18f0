import type { Engine, LicenseExchange } from '../engine/engine.ts';
import { resolveContentId } from '../engine/engine.ts';
import { contentIdFromSkd, normaliseCertificate, spcFormBody } from '../engine/fairplay.ts';
import { findLicenseAuthError } from '../engine/find-error.ts';
import { drmTypeFor, isFairPlay, LICENSE_MESSAGES, type DrmType } from '../engine/key-systems.ts';
import { proxyFailure } from '../engine/proxy.ts';
import { parseServiceError, toServiceError } from '../engine/service-error.ts';
import type { LoadSession } from '../engine/session.ts';
import { RENEWAL_INTERVAL_HEADER } from '../engine/site-client.ts';
import type { LicenseAuthEvents } from './events.ts';
import type { GetContentId } from './options.ts';
import {
  LICENSE,
  SERVER_CERTIFICATE,
  type DrmInfo,
  type NetworkingEngine,
  type RequestContext,
  type RequestFilter,
  type ResponseFilter,
  type ShakaRequest,
  type ShakaResponse,
} from './shaka-types.ts';

/** The parts of Shaka's `downloadfailed` event that are read. */
export interface DownloadFailedEvent {
  request: ShakaRequest;
  error: { code?: number; data?: unknown[] } | null;
  httpResponseCode: number;
}

export interface LicenseFilters {
  onDownloadFailed(event: DownloadFailedEvent): void;
  /** The error ended a request whose load the app had left: no error for the app. */
  dropped(error: unknown): boolean;
  /** Takes the filters off the networking engine, and gives it its own `request` back. */
  detach(): void;
}

/** A license request as it was made, and the networking engine's operation for it. */
interface Made {
  /** The body and headers before any request filter (the app's included) changed them. */
  body: ShakaRequest['body'];
  headers: Record<string, string>;
  operation: { promise: PromiseLike<unknown>; abort(): unknown };
}

/** What the filters keep of a license request besides the exchange. */
interface State extends LicenseExchange {
  /** Our filter holds the request (waiting for a token): the end of its load does not abort it. */
  busy?: boolean;
  /** FairPlay: the body is the `spc=` form already (Shaka keeps it between attempts). */
  formed?: boolean;
  /** What our response filter made of the answer, before the filters after it ran. */
  license?: ShakaResponse['data'];
}

/**
 * `sessionOf`: the load a license request belongs to (the player's, a preload's, a download's).
 * `net`: the networking engine the filters go on; its license requests are tracked as they are
 * made, and a re-send with a fresh token goes through it. `certificateUrls`: absolute URLs of the
 * certificates the handle configured, whose answers are normalised.
 */
export function createLicenseFilters(
  engine: Engine<LicenseAuthEvents>,
  sessionOf: (request: ShakaRequest, context: RequestContext | undefined) => Promise<LoadSession>,
  net: NetworkingEngine,
  certificateUrls: ReadonlySet<string>,
): LicenseFilters {
  const options = engine.options;
  const states = new WeakMap<ShakaRequest, State>();
  const made = new WeakMap<ShakaRequest, Made>();
  const droppedErrors = new WeakSet<object>();
  // Object(): a WeakSet holds objects only, and what is thrown is one in practice.
  const drop = (error: unknown, quietly?: boolean) => quietly && droppedErrors.add(Object(error));

  // Every license request (Shaka's own attempts included, the one with a fresh token after a
  // 401/403 too) is tracked as it is made, before anyone else holds its operation. Shaka runs the
  // request filters later, so its body and headers are still as they were made.
  const request = net.request;
  net.request = function (this: NetworkingEngine, type, shakaRequest, context) {
    const operation = request.call(this, type, shakaRequest, context);
    if (type === LICENSE) {
      made.set(shakaRequest, {
        body: shakaRequest.body,
        headers: { ...shakaRequest.headers },
        operation,
      });
      // Registered before the DRM engine's own handler, so the mark is there when it reports: a
      // request whose load the app left fails quietly.
      operation.promise.catch((error: unknown) =>
        drop(error, states.get(shakaRequest)?.session.movedOn),
      );
    }
    return operation;
  };

  /** The request's operation ends with its load: the session's end aborts what is on the wire. */
  const endWith = (shakaRequest: ShakaRequest, state: State): void => {
    const record = made.get(shakaRequest);
    if (!record) return;
    const { signal } = state.session;
    // While our filter holds the request, the session's end rejects the filter with this
    // package's ABORTED error, which says more than an aborted operation.
    const abort = () => {
      if (!state.busy) record.operation.abort();
    };
    signal.addEventListener('abort', abort, { once: true });
    const done = () => signal.removeEventListener('abort', abort);
    record.operation.promise.then(done, done);
  };

  const authorise = async (
    request: ShakaRequest,
    context: RequestContext | undefined,
    drmInfo: DrmInfo,
    drmType: DrmType,
    state: State | undefined,
  ): Promise<void> => {
    if (!state) {
      const { keySystem } = drmInfo;
      const session = await sessionOf(request, context);
      // FairPlay: skd init data (legacy and native HLS), else the skd:// URI Shaka's HLS parser
      // puts in keySystemUris (HLS through MSE, where the init data is a sinf box).
      const cid = await resolveContentId(
        options,
        session,
        keySystem,
        () => (options.getContentId as GetContentId | undefined)?.(drmInfo, request),
        () =>
          [request.initData, ...(drmInfo.keySystemUris ?? []), drmInfo.initData?.[0]?.initData]
            .map((source) => contentIdFromSkd(source))
            .find((id) => id),
      );
      state = engine.begin(keySystem, drmType, cid, session, request.licenseRequestType);
      states.set(request, state);
      endWith(request, state);
    }
    // Shaka keeps the body between attempts, so it is rewritten once (a re-send starts from the
    // CDM's own message again).
    if (isFairPlay(state.keySystem) && request.body && !state.formed) {
      state.formed = true;
      request.body = spcFormBody(request.body);
    }
    // Shaka resets headers before every attempt.
    state.busy = true;
    try {
      // Shaka asserts a request has a URI.
      const proxied = await engine.authorize(
        state,
        request.headers,
        request.attempt,
        request.uris[0]!,
      );
      // Proxy mode: every URI is the proxy's (Shaka picked its index already), with cookies.
      if (proxied) {
        request.uris.fill(proxied);
        request.allowCrossSiteCredentials = true;
      }
    } catch (error) {
      // Rejected all the same: Shaka waits for a pending filter before it unloads. The failure
      // callback keeps it from the app.
      drop(error, state.session.movedOn);
      throw error;
    } finally {
      state.busy = false;
    }
  };

  const requestFilter: RequestFilter = (type, request, context) => {
    if (type !== LICENSE) return;
    const drmInfo = request.drmInfo;
    // `data:` URIs are Shaka's own ClearKey licenses, answered without a server.
    if (!drmInfo || request.uris.every((uri) => uri.startsWith('data:'))) return;
    const kind = request.licenseRequestType;
    // Requests an app builds itself have no type and count as licenses.
    if (kind && !LICENSE_MESSAGES.includes(kind)) return;
    const drmType = drmTypeFor(drmInfo.keySystem, options.drmTypes);
    if (!drmType) return;
    // A refusal surfaces on every attempt; Shaka runs the filters once more after the last
    // attempt and then sends nothing.
    const state = states.get(request);
    if (state?.refused) throw state.refused;
    if (request.attempt >= request.retryParameters.maxAttempts) return;
    engine.checkHeader([request.uris[request.attempt % request.uris.length]!]);
    return authorise(request, context, drmInfo, drmType, state);
  };

  /**
   * A refusal a fresh token can fix: the request as it was made (the CDM's challenge, before any
   * filter wrapped it) goes once more through the networking engine, where every request filter
   * runs on it once, with a fresh token; its answer replaces this one. It ends with its load, like
   * the token fetch it waits for.
   */
  const resendWithFreshToken = async (state: State, response: ShakaResponse): Promise<void> => {
    const refused = response.originalRequest;
    const { body, headers } = made.get(refused) ?? refused;
    const copy: ShakaRequest = { ...refused, body, headers: { ...headers } };
    const next: State = { ...state, formed: false };
    states.set(copy, next);
    try {
      const operation = net.request(LICENSE, copy);
      endWith(copy, next);
      const fresh = (await operation.promise) as ShakaResponse;
      response.data = next.license ?? fresh.data;
      response.status = fresh.status;
    } catch (error) {
      const cause = findLicenseAuthError(error) ?? error;
      drop(cause, state.session.movedOn);
      throw cause;
    }
  };

  const responseFilter: ResponseFilter = (type, response) => {
    if (type === SERVER_CERTIFICATE) {
      if (certificateUrls.has(response.originalUri)) {
        response.data = normaliseCertificate(response.data);
      }
      return;
    }
    // Only license requests have an exchange.
    const state = states.get(response.originalRequest);
    if (!state) return;
    const license = engine.read(
      state,
      response.status ?? 200,
      response.data,
      response.uri,
      response.headers?.[RENEWAL_INTERVAL_HEADER],
    );
    if (!license) return resendWithFreshToken(state, response);
    response.data = state.license = license as ShakaResponse['data'];
  };

  const onDownloadFailed = (event: DownloadFailedEvent): void => {
    const state = states.get(event.request);
    // A refused request fails once more in our own filter; its answer was reported already.
    if (!state || state.refused) return;
    const status = event.httpResponseCode || undefined;
    // Shaka's BAD_HTTP_STATUS data: [uri, status, responseText, ...].
    const data = event.error?.data ?? [];
    const url = String(data[0]);
    const own = options.licenseProxy
      ? proxyFailure(data[2] as string, status ?? 0, url, state)
      : undefined;
    const body = own ? null : parseServiceError(data[2] as string);
    const error = own ?? (body ? toServiceError(state, body, status ?? 0, url) : undefined);
    engine.report(state, status, error);
    // Shaka runs the request filters once more even when no attempt is left, so a refusal thrown
    // there reaches the app in place of a bare HTTP status error.
    const attemptsLeft = event.request.attempt + 1 < event.request.retryParameters.maxAttempts;
    // The proxy's passing failures (5xx: the service or the site's decision) are tried again.
    if (
      !(attemptsLeft && engine.refresh(state, body, status)) &&
      error &&
      !(own && attemptsLeft && status! >= 500)
    ) {
      state.refused = error;
    }
  };

  net.registerRequestFilter(requestFilter);
  net.registerResponseFilter(responseFilter);
  return {
    onDownloadFailed,
    // An operation aborted because its load ended: Shaka's LICENSE_REQUEST_FAILED wraps its error.
    dropped: (error) =>
      droppedErrors.has(
        (findLicenseAuthError(error) ??
          (error as { data?: unknown[] } | null)?.data?.[0]) as object,
      ),
    detach() {
      net.request = request;
      net.unregisterRequestFilter(requestFilter);
      net.unregisterResponseFilter(responseFilter);
    },
  };
}
