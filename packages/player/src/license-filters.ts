import { toBytes } from './bytes.ts';
import { LicenseAuthError } from './errors.ts';
import type { Emitter } from './events.ts';
import { contentIdFromSkd, normaliseCertificate, spcFormBody, unwrapCkc } from './fairplay.ts';
import { headerRequired, isLocalUrl } from './header-check.ts';
import { drmTypeFor, isFairPlay, type DrmType } from './key-systems.ts';
import { readLicenseAnswer } from './license-answer.ts';
import type { ResolvedOptions } from './options.ts';
import { parseServiceError, toServiceError, type ServiceErrorBody } from './service-error.ts';
import {
  RequestType,
  type DrmInfo,
  type RequestFilter,
  type ResponseFilter,
  type ShakaRequest,
  type ShakaResponse,
} from './shaka-types.ts';
import type { CachedToken } from './token-cache.ts';
import { findLicenseAuthError } from './unwrap-error.ts';

export interface FilterDeps {
  options: ResolvedOptions;
  emit: Emitter['emit'];
  getToken(cid: string, drmType: DrmType): Promise<CachedToken>;
  invalidate(cid: string, drmType: DrmType, value: string): void;
  /** Sends a license request through the networking engine the filters are registered on. */
  send(request: ShakaRequest): Promise<ShakaResponse>;
  /** Absolute URL of the FairPlay certificate whose answers are normalised, if configured. */
  certificateUrl: string | undefined;
  onKeySystemUsed(keySystem: string): void;
}

/** The parts of Shaka's `downloadfailed` event that are read. */
export interface DownloadFailedEvent {
  requestType: number;
  request: ShakaRequest;
  error: { code?: number; data?: unknown[] } | null;
  httpResponseCode: number;
}

interface RequestState {
  keySystem: string;
  drmType: DrmType;
  cid: string;
  token?: string;
  sentAt: number;
  /** The previous attempt was refused with HTTP 401/403: invalidate its token and fetch another. */
  renewToken: boolean;
  /** A fresh token was tried for this license request already: the next refusal is final. */
  renewed: boolean;
  /** The service refused for good; resending would only fail again. */
  refused?: LicenseAuthError;
  /** A request went out and its answer has not been reported yet. */
  awaiting: boolean;
}

export interface LicenseFilters {
  requestFilter: RequestFilter;
  responseFilter: ResponseFilter;
  onDownloadFailed(event: DownloadFailedEvent): void;
}

// EME message types that are license requests; an individualization request goes to a third party
// and must not carry the token. Requests an app builds itself have no type and count as licenses.
const LICENSE_MESSAGES = ['license-request', 'license-renewal', 'license-release'];

export function createLicenseFilters(deps: FilterDeps): LicenseFilters {
  const { options, emit } = deps;
  const states = new WeakMap<ShakaRequest, RequestState>();

  const resolveCid = async (drmInfo: DrmInfo, request: ShakaRequest): Promise<string> => {
    // FairPlay: skd init data (legacy and native HLS), else the skd:// URI Shaka's HLS parser puts
    // in keySystemUris (HLS through MSE, where the init data is a sinf box).
    const skd = isFairPlay(drmInfo.keySystem)
      ? [request.initData, ...(drmInfo.keySystemUris ?? []), drmInfo.initData?.[0]?.initData]
      : [];
    const cid =
      options.contentId ??
      (await options.getContentId?.(drmInfo, request)) ??
      skd.map((source) => contentIdFromSkd(source)).find((id) => id);
    if (!cid) {
      throw new LicenseAuthError(
        'NO_CONTENT_ID',
        `No content ID for the ${drmInfo.keySystem} license request: set contentId, or make getContentId return one.`,
      );
    }
    return cid;
  };

  const authorise = async (
    request: ShakaRequest,
    drmInfo: DrmInfo,
    drmType: DrmType,
  ): Promise<void> => {
    const startedAt = options.now();
    let state = states.get(request);
    if (state?.refused) throw state.refused;
    if (!state) {
      const cid = await resolveCid(drmInfo, request);
      state = {
        keySystem: drmInfo.keySystem,
        drmType,
        cid,
        sentAt: 0,
        renewToken: false,
        renewed: false,
        awaiting: false,
      };
      states.set(request, state);
      // Shaka keeps the body between attempts, so it is rewritten once.
      if (isFairPlay(drmInfo.keySystem) && request.body && request.attempt === 0) {
        request.body = spcFormBody(request.body);
      }
    }
    if (state.renewToken && state.token !== undefined) {
      deps.invalidate(state.cid, drmType, state.token);
      state.renewToken = false;
    }
    const token = await deps.getToken(state.cid, drmType);
    // Shaka resets headers before every attempt.
    request.headers[options.header] = token.value;
    if (isFairPlay(drmInfo.keySystem))
      request.headers['Content-Type'] = 'application/x-www-form-urlencoded';
    state.token = token.value;
    state.sentAt = options.now();
    state.awaiting = true;
    deps.onKeySystemUsed(drmInfo.keySystem);
    emit('licenseRequestSent', {
      keySystem: state.keySystem,
      drmType,
      cid: state.cid,
      attempt: request.attempt,
      tokenWaitMs: state.sentAt - startedAt,
      tokenSource: token.source,
      licenseRequestType: request.licenseRequestType,
      refreshed: state.renewed,
    });
  };

  const requestFilter: RequestFilter = (type, request) => {
    if (type !== RequestType.LICENSE) return;
    const drmInfo = request.drmInfo;
    // `data:` URIs are Shaka's own ClearKey licenses, answered without a server.
    if (!drmInfo || request.uris.every((uri) => uri.startsWith('data:'))) return;
    const kind = request.licenseRequestType;
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
    const uri = request.uris[request.attempt % request.uris.length] ?? '';
    if (!options.headerGiven && !isLocalUrl(uri)) throw headerRequired(uri);
    return authorise(request, drmInfo, drmType);
  };

  /** Reports the answer to the request last sent (once), with the error it turned into. */
  const report = (state: RequestState, status: number | undefined, error?: LicenseAuthError) => {
    if (!state.awaiting) return;
    state.awaiting = false;
    const { keySystem, drmType, cid } = state;
    emit('licenseAnswered', {
      keySystem,
      drmType,
      cid,
      status,
      durationMs: options.now() - state.sentAt,
      ...(error && { error }),
    });
  };

  const refusal = (state: RequestState, body: ServiceErrorBody, status: number, url: string) =>
    toServiceError(body, { ...state, status, url, afterFreshToken: state.renewed });

  const canRefresh = (state: RequestState, body: ServiceErrorBody | null, status?: number) =>
    !state.renewed &&
    (status === 401 || status === 403 || options.freshTokenCodes.includes(body?.errorCode ?? ''));

  /**
   * A refusal a fresh token can fix: the same request (same body, same server) goes once more
   * through the networking engine with a fresh token, and its answer replaces this one.
   */
  const resendWithFreshToken = async (
    state: RequestState,
    response: ShakaResponse,
  ): Promise<void> => {
    state.renewed = true;
    if (state.token !== undefined) deps.invalidate(state.cid, state.drmType, state.token);
    const copy: ShakaRequest = { ...response.originalRequest };
    states.set(copy, { ...state, awaiting: false });
    try {
      const fresh = await deps.send(copy);
      response.data = fresh.data;
      response.status = fresh.status;
    } catch (error) {
      throw findLicenseAuthError(error) ?? error;
    }
  };

  const responseFilter: ResponseFilter = (type, response) => {
    if (type === RequestType.SERVER_CERTIFICATE) {
      if (deps.certificateUrl && response.originalUri === deps.certificateUrl) {
        response.data = normaliseCertificate(response.data);
      }
      return;
    }
    const state = type === RequestType.LICENSE ? states.get(response.originalRequest) : undefined;
    if (!state) return;
    const status = response.status ?? 200;
    try {
      const answer = readLicenseAnswer(response.data, state.keySystem, state.drmType);
      if (answer.refusal) {
        const error = refusal(state, answer.refusal, status, response.uri);
        if (!canRefresh(state, answer.refusal)) throw error;
        report(state, status, error);
        return resendWithFreshToken(state, response);
      }
      const license = answer.license ?? response.data;
      response.data = isFairPlay(state.keySystem) ? unwrapCkc(toBytes(license)) : license;
      report(state, status);
    } catch (error) {
      report(state, status, error as LicenseAuthError);
      throw error;
    }
  };

  const onDownloadFailed = (event: DownloadFailedEvent): void => {
    const state = event.requestType === RequestType.LICENSE ? states.get(event.request) : undefined;
    // A refused request fails once more in our own filter; its answer was reported already.
    if (!state || state.refused) return;
    const status = event.httpResponseCode || undefined;
    // Shaka's BAD_HTTP_STATUS data: [uri, status, responseText, ...].
    const data = event.error?.data ?? [];
    const body = parseServiceError(data[2] as string);
    const error = body ? refusal(state, body, status ?? 0, String(data[0])) : undefined;
    report(state, status, error);
    // Shaka runs the request filters once more even when no attempt is left, so a refusal thrown
    // there reaches the app in place of a bare HTTP status error.
    const attemptsLeft = event.request.attempt + 1 < event.request.retryParameters.maxAttempts;
    if (attemptsLeft && canRefresh(state, body, status)) {
      state.renewToken = state.renewed = true;
    } else if (error) {
      state.refused = error;
    }
  };

  return { requestFilter, responseFilter, onDownloadFailed };
}
