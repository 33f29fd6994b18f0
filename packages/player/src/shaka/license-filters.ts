import type { Engine, LicenseExchange } from '../engine/engine.ts';
import { resolveContentId } from '../engine/engine.ts';
import { contentIdFromSkd, normaliseCertificate, spcFormBody } from '../engine/fairplay.ts';
import { findLicenseAuthError } from '../engine/find-error.ts';
import { drmTypeFor, isFairPlay, LICENSE_MESSAGES, type DrmType } from '../engine/key-systems.ts';
import { proxyFailure } from '../engine/proxy.ts';
import { parseServiceError } from '../engine/service-error.ts';
import type { LoadSession } from '../engine/session.ts';
import { RENEWAL_INTERVAL_HEADER } from '../engine/site-client.ts';
import type { LicenseAuthEvents } from './events.ts';
import type { GetContentId } from './options.ts';
import {
  RequestType,
  type DrmInfo,
  type RequestContext,
  type RequestFilter,
  type ResponseFilter,
  type ShakaRequest,
  type ShakaResponse,
} from './shaka-types.ts';

export interface FilterDeps {
  engine: Engine<LicenseAuthEvents>;
  /** The load a license request belongs to (the player's, a preload's, a download's). */
  sessionOf(request: ShakaRequest, context: RequestContext | undefined): Promise<LoadSession>;
  /** The request as it was made, before any request filter (the app's included) changed it. */
  original(request: ShakaRequest): { body: ShakaRequest['body']; headers: Record<string, string> };
  /** Sends a license request through the networking engine the filters are registered on. */
  send(request: ShakaRequest, session: LoadSession): Promise<ShakaResponse>;
  /** Absolute URLs of the certificates the handle configured, whose answers are normalised. */
  certificateUrls: ReadonlySet<string>;
}

/** The parts of Shaka's `downloadfailed` event that are read. */
export interface DownloadFailedEvent {
  requestType: number;
  request: ShakaRequest;
  error: { code?: number; data?: unknown[] } | null;
  httpResponseCode: number;
}

/** What the networking engine returns for a request: its outcome, and a way to abort it. */
export interface Operation {
  promise: PromiseLike<unknown>;
  abort(): unknown;
}

export interface LicenseFilters {
  /**
   * Called by the networking engine's `request` as a license request is made, before anyone else
   * holds its operation: the operation (Shaka's own attempts included, the one with a fresh token
   * after a 401/403 too) is aborted when its load ends.
   */
  track(request: ShakaRequest, operation: Operation): void;
  requestFilter: RequestFilter;
  responseFilter: ResponseFilter;
  onDownloadFailed(event: DownloadFailedEvent): void;
  /** The error ended a request whose load the app had left: no error for the app. */
  dropped(error: unknown): boolean;
}

export function createLicenseFilters(deps: FilterDeps): LicenseFilters {
  const { engine } = deps;
  const options = engine.options;
  const getContentId = options.getContentId as GetContentId | undefined;
  const states = new WeakMap<ShakaRequest, LicenseExchange>();
  // What our filter made of a re-sent request's answer, before the filters after it ran: the
  // refused request's answer becomes this, and runs through those filters once.
  const resentLicenses = new WeakMap<ShakaRequest, ShakaResponse['data']>();
  const droppedErrors = new WeakSet<object>();
  const formed = new WeakSet<ShakaRequest>();
  const operations = new WeakMap<ShakaRequest, Operation>();
  // Requests aborted because the app moved on: their failure is kept from the app.
  const abortedQuietly = new WeakSet<ShakaRequest>();
  // Requests our filter holds (waiting for a token): the session's end rejects the filter with
  // this package's ABORTED error, which says more than an aborted operation.
  const filtering = new WeakSet<ShakaRequest>();

  const track = (request: ShakaRequest, operation: Operation): void => {
    operations.set(request, operation);
    // Registered before the DRM engine's own handler, so the mark is there when it reports.
    operation.promise.then(undefined, (error: unknown) => {
      if (abortedQuietly.has(request) && typeof error === 'object' && error !== null) {
        droppedErrors.add(error);
      }
    });
  };

  /** The request's operation ends with its load: the session's end aborts what is on the wire. */
  const endWith = (request: ShakaRequest, session: LoadSession): void => {
    const operation = operations.get(request);
    if (!operation) return;
    const abort = () => {
      if (filtering.has(request)) return;
      if (session.movedOn) abortedQuietly.add(request);
      operation.abort();
    };
    session.signal.addEventListener('abort', abort, { once: true });
    const done = () => session.signal.removeEventListener('abort', abort);
    operation.promise.then(done, done);
  };

  const authorise = async (
    request: ShakaRequest,
    context: RequestContext | undefined,
    drmInfo: DrmInfo,
    drmType: DrmType,
  ): Promise<void> => {
    let state = states.get(request);
    if (state?.refused) throw state.refused;
    if (!state) {
      const { keySystem } = drmInfo;
      const session = await deps.sessionOf(request, context);
      // FairPlay: skd init data (legacy and native HLS), else the skd:// URI Shaka's HLS parser
      // puts in keySystemUris (HLS through MSE, where the init data is a sinf box).
      const cid = await resolveContentId(
        options,
        session,
        keySystem,
        () => getContentId?.(drmInfo, request),
        () =>
          [request.initData, ...(drmInfo.keySystemUris ?? []), drmInfo.initData?.[0]?.initData]
            .map((source) => contentIdFromSkd(source))
            .find((id) => id),
      );
      state = engine.begin(keySystem, drmType, cid, session, request.licenseRequestType);
      states.set(request, state);
      endWith(request, session);
    }
    // Shaka keeps the body between attempts, so it is rewritten once (a re-send starts from the
    // CDM's own message again).
    if (isFairPlay(state.keySystem) && request.body && !formed.has(request)) {
      formed.add(request);
      request.body = spcFormBody(request.body);
    }
    // Shaka resets headers before every attempt.
    const { session } = state;
    filtering.add(request);
    try {
      const proxied = await engine.authorize(
        state,
        request.headers,
        request.attempt,
        request.uris[0],
      );
      // Proxy mode: every URI is the proxy's (Shaka picked its index already), with cookies.
      if (proxied) {
        request.uris.fill(proxied);
        request.allowCrossSiteCredentials = true;
      }
    } catch (error) {
      // Rejected all the same: Shaka waits for a pending filter before it unloads. The failure
      // callback keeps it from the app.
      if (session.movedOn && typeof error === 'object' && error !== null) droppedErrors.add(error);
      throw error;
    } finally {
      filtering.delete(request);
    }
  };

  const requestFilter: RequestFilter = (type, request, context) => {
    if (type !== RequestType.LICENSE) return;
    const drmInfo = request.drmInfo;
    // `data:` URIs are Shaka's own ClearKey licenses, answered without a server.
    if (!drmInfo || request.uris.every((uri) => uri.startsWith('data:'))) return;
    const kind = request.licenseRequestType;
    // Requests an app builds itself have no type and count as licenses.
    if (kind && !LICENSE_MESSAGES.includes(kind)) return;
    const drmType = drmTypeFor(drmInfo.keySystem, options.drmTypes);
    if (!drmType) return;
    // Shaka runs the filters once more after the last attempt and then sends nothing: only a
    // refusal has to surface there.
    if (request.attempt >= request.retryParameters.maxAttempts) {
      const refused = states.get(request)?.refused;
      if (refused) throw refused;
      return;
    }
    engine.checkHeader([request.uris[request.attempt % request.uris.length] ?? '']);
    return authorise(request, context, drmInfo, drmType);
  };

  /**
   * A refusal a fresh token can fix: the request as it was made (the CDM's challenge, before any
   * filter wrapped it) goes once more through the networking engine, where every request filter
   * runs on it once, with a fresh token; its answer replaces this one.
   */
  const resendWithFreshToken = async (
    state: LicenseExchange,
    response: ShakaResponse,
  ): Promise<void> => {
    const { body, headers } = deps.original(response.originalRequest);
    const copy: ShakaRequest = { ...response.originalRequest, body, headers: { ...headers } };
    states.set(copy, { ...state });
    try {
      const fresh = await deps.send(copy, state.session);
      response.data = resentLicenses.get(copy) ?? fresh.data;
      response.status = fresh.status;
    } catch (error) {
      const cause = findLicenseAuthError(error) ?? error;
      if (state.session.movedOn && typeof cause === 'object' && cause !== null) {
        droppedErrors.add(cause);
      }
      throw cause;
    }
  };

  const responseFilter: ResponseFilter = (type, response) => {
    if (type === RequestType.SERVER_CERTIFICATE) {
      if (deps.certificateUrls.has(response.originalUri)) {
        response.data = normaliseCertificate(response.data);
      }
      return;
    }
    const state = type === RequestType.LICENSE ? states.get(response.originalRequest) : undefined;
    if (!state) return;
    const license = engine.read(
      state,
      response.status ?? 200,
      response.data,
      response.uri,
      response.headers?.[RENEWAL_INTERVAL_HEADER],
    );
    if (!license) return resendWithFreshToken(state, response);
    response.data = license as ShakaResponse['data'];
    resentLicenses.set(response.originalRequest, response.data);
  };

  const onDownloadFailed = (event: DownloadFailedEvent): void => {
    const state = event.requestType === RequestType.LICENSE ? states.get(event.request) : undefined;
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
    const error = own ?? (body ? engine.refusal(state, body, status ?? 0, url) : undefined);
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

  const dropped = (error: unknown) => {
    const cause = findLicenseAuthError(error);
    if (cause !== null) return droppedErrors.has(cause);
    // An operation aborted because its load ended: Shaka's LICENSE_REQUEST_FAILED wraps its error.
    const inner = (error as { data?: unknown[] } | null)?.data?.[0];
    return typeof inner === 'object' && inner !== null && droppedErrors.has(inner);
  };

  return { track, requestFilter, responseFilter, onDownloadFailed, dropped };
}
