import { toBytes } from './bytes.ts';
import { LicenseAuthError, type LicenseServiceError } from './errors.ts';
import type { Emitter } from './events.ts';
import { contentIdFromSkd, normaliseCertificate, spcFormBody, unwrapCkc } from './fairplay.ts';
import { drmTypeFor, isFairPlay, type DrmType } from './key-systems.ts';
import type { ResolvedOptions } from './options.ts';
import { parseServiceError, toServiceError, type ServiceErrorBody } from './service-error.ts';
import {
  RequestType,
  type DrmInfo,
  type RequestFilter,
  type ResponseFilter,
  type ShakaRequest,
} from './shaka-types.ts';
import type { CachedToken } from './token-cache.ts';

export interface FilterDeps {
  options: ResolvedOptions;
  emit: Emitter['emit'];
  getToken(cid: string, drmType: DrmType): Promise<CachedToken>;
  invalidate(cid: string, drmType: DrmType, value: string): void;
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
  /** The previous attempt was refused for its token: invalidate it and fetch another. */
  renewToken: boolean;
  renewed: boolean;
  /** The service refused for good; resending would only fail again. */
  refused?: LicenseServiceError;
  /** A request went out and its answer has not been reported yet. */
  awaiting: boolean;
}

export interface LicenseFilters {
  requestFilter: RequestFilter;
  responseFilter: ResponseFilter;
  onDownloadFailed(event: DownloadFailedEvent): void;
}

export function createLicenseFilters(deps: FilterDeps): LicenseFilters {
  const { options, emit } = deps;
  const states = new WeakMap<ShakaRequest, RequestState>();

  const resolveCid = async (drmInfo: DrmInfo, request: ShakaRequest): Promise<string> => {
    const cid =
      options.contentId ??
      (await options.getContentId?.(drmInfo, request)) ??
      (isFairPlay(drmInfo.keySystem)
        ? (contentIdFromSkd(request.initData) ?? contentIdFromSkd(drmInfo.initData?.[0]?.initData))
        : undefined);
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
    });
  };

  const requestFilter: RequestFilter = (type, request) => {
    if (type !== RequestType.LICENSE) return;
    const drmInfo = request.drmInfo;
    // `data:` URIs are Shaka's own ClearKey licenses, answered without a server.
    if (!drmInfo || request.uris.every((uri) => uri.startsWith('data:'))) return;
    const drmType = drmTypeFor(drmInfo.keySystem, options.drmTypes);
    if (!drmType) return;
    // Shaka runs the filters once more after the last attempt and then sends nothing: only a
    // refusal has to surface there.
    if (request.attempt >= request.retryParameters.maxAttempts) {
      const refused = states.get(request)?.refused;
      if (refused) throw refused;
      return;
    }
    return authorise(request, drmInfo, drmType);
  };

  /** Reports the answer, and turns a service error body into a `LicenseServiceError`. */
  const answer = (
    state: RequestState,
    status: number | undefined,
    body: ServiceErrorBody | null,
    url: string,
  ) => {
    const { keySystem, drmType, cid } = state;
    const error = body
      ? toServiceError(body, { keySystem, drmType, cid, status: status ?? 0, url })
      : undefined;
    if (!state.awaiting) return error;
    state.awaiting = false;
    emit('licenseAnswered', {
      keySystem,
      drmType,
      cid,
      status,
      durationMs: options.now() - state.sentAt,
      ...(error && { error }),
    });
    return error;
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
    let error: LicenseAuthError | undefined = answer(
      state,
      response.status ?? 200,
      parseServiceError(response.data),
      response.uri,
    );
    if (!error && isFairPlay(state.keySystem)) {
      try {
        response.data = unwrapCkc(toBytes(response.data));
      } catch (e) {
        error = e as LicenseAuthError;
      }
    }
    if (error) throw error;
  };

  const onDownloadFailed = (event: DownloadFailedEvent): void => {
    const state = event.requestType === RequestType.LICENSE ? states.get(event.request) : undefined;
    // A refused request fails once more in our own filter; its answer was reported already.
    if (!state || state.refused) return;
    const status = event.httpResponseCode || undefined;
    // Shaka's BAD_HTTP_STATUS data: [uri, status, responseText, ...].
    const data = event.error?.data ?? [];
    const error = answer(state, status, parseServiceError(data[2] as string), String(data[0]));
    // Shaka runs the request filters once more even when no attempt is left, so a refusal thrown
    // there reaches the app in place of a bare HTTP status error.
    const attemptsLeft = event.request.attempt + 1 < event.request.retryParameters.maxAttempts;
    if ((status === 401 || status === 403) && !state.renewed && attemptsLeft) {
      state.renewToken = state.renewed = true;
    } else if (error) {
      state.refused = error;
    }
  };

  return { requestFilter, responseFilter, onDownloadFailed };
}
