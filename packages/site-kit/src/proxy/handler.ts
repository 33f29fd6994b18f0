import { SiteKitError } from '../errors.ts';
import { errorClassOf } from '../http/error-class.ts';
import { RENEWAL_INTERVAL_HEADER, renewalIntervalOf } from '../http/renewal-interval.ts';
import type { IssuesTokens } from '../http/token-handler.ts';
import type { IssueOptions } from '../token/issue-rules.ts';
import type { BytesResult } from '../http/bytes-body.ts';
import type { Answer, Exchange } from '../http/exchange.ts';
import { toWebHandler, type WebHandler } from '../http/web.ts';
import type { SiteCredentials } from '../token/keys.ts';
import { createProxyCors } from './cors.ts';
import { decideWithin, readDecision } from './decision.ts';
import { proxyDrms, type ProxyDrmType } from './drm.ts';
import { failureAnswer, ProxyFailure } from './errors.ts';
import { eventEmitter, type LicenseProxyEvent } from './events.ts';
import { checkProxyOptions, type LicenseProxyOptions, type ProxyAsk } from './options.ts';
import { proxyRequestReader, type ProxyRequest } from './request.ts';
import {
  fetchTransport,
  type Transport,
  type UpstreamAnswer,
  type UpstreamCall,
} from './upstream.ts';
import { readAnswer, type Unwrapped } from './unwrap.ts';
import type { RateVerdict } from '../rate-limit/verdict.ts';

/**
 * The site's license proxy: the player posts its license request here (`?drmType=&cid=`), the site
 * decides from its own session, and the proxy forwards the body unchanged with a token it issued
 * (v2 by default) to the fixed license URL, then relays the service's answer. The token never
 * reaches the browser. `makeIssuer` is the crypto in use (node:crypto or Web Crypto); `transport`
 * how the service is called when the site gives no `fetch` of its own.
 */
export function createLicenseProxyWith(
  makeIssuer: (credentials: SiteCredentials) => IssuesTokens,
  options: LicenseProxyOptions,
  defaultTransport: () => Transport = () => fetchTransport((request) => fetch(request)),
): WebHandler {
  const config = checkProxyOptions(options);
  const { siteId, siteKey, accessKey, hashEncoding } = options;
  const issuer = makeIssuer({ siteId, siteKey, accessKey, hashEncoding });
  const readRequest = proxyRequestReader(proxyDrms());
  const cors = createProxyCors(options.cors, config.forwardHeaders);
  const emit = eventEmitter(options.onEvent);
  const watching = options.onEvent !== undefined;
  const transport =
    options.fetch === undefined ? defaultTransport() : fetchTransport(options.fetch);
  const { authorize, onError, rateLimit } = options;
  const reportError = (error: unknown, asked: ProxyAsk | undefined): void => {
    try {
      onError?.(error, asked === undefined ? undefined : { ...asked });
    } catch {
      // The site's error reporter failing must not change the answer.
    }
  };
  const limits = { deadlineMs: config.upstreamMs, maxAnswerBytes: config.maxAnswerBytes };
  const licenseUrl = config.licenseUrl.href;
  const serverInfo = new URL(config.licenseUrl);
  serverInfo.searchParams.set('mode', 'getserverinfo');
  const serverInfoUrl = serverInfo.href;
  // The cid is appended per request, as the last query member.
  const clearKeyUrl = `${config.clearKeyUrl.href}${config.clearKeyUrl.search === '' ? '?' : '&'}cid=`;

  function forwarded(exchange: Exchange, headers: Record<string, string>): Record<string, string> {
    for (const name of config.forwardHeaders) {
      const value = exchange.header(name);
      if (value !== null) headers[name] = value;
    }
    return headers;
  }

  const tooLarge = () =>
    new ProxyFailure(
      'BODY_TOO_LARGE',
      `The license request body is over the limit of ${config.maxBodyBytes} bytes.`,
    );

  // A check of the read rather than an async function of its own: one promise less per request.
  function body(read: BytesResult): Uint8Array<ArrayBuffer> {
    if (read.ok && read.bytes.byteLength > 0) return read.bytes;
    if (!read.ok && read.tooLarge) throw tooLarge();
    throw new ProxyFailure(
      'BAD_BODY',
      read.ok
        ? 'The license request body is empty: send the CDM message (FairPlay: spc=<base64 SPC>).'
        : 'The license request body could not be read.',
    );
  }

  /** The token, and the renewal interval its policy sets (undefined: none to announce). */
  async function token(
    exchange: Exchange,
    drmType: ProxyDrmType,
    cid: string,
  ): Promise<{ text: string; renewal: number | undefined }> {
    let decided: unknown;
    try {
      decided = decideWithin(
        () => authorize(exchange.request(), { drmType, cid }),
        config.authorizeMs,
      );
      if (decided instanceof Promise) decided = await decided;
    } catch (error) {
      if (error instanceof ProxyFailure) throw error;
      // The site's own error may hold anything (a database URL with its password): the events get
      // its class, the site's onError the error itself, as at the token and custom-data endpoints.
      reportError(error, { drmType, cid });
      throw siteError(`authorize threw ${errorClassOf(error)}; the error itself went to onError`);
    }
    const decision = readDecision(decided);
    if (typeof decision === 'string') throw siteError(decision);
    if (!decision.allow) {
      if (watching) emit({ type: 'decision', drmType, cid, allow: false, status: decision.status });
      throw new ProxyFailure('SITE_REFUSED', decision.reason, { status: decision.status });
    }
    const { policy, userId, responseFormat, keyRotation } = decision;
    if (rateLimit !== undefined && userId !== undefined) {
      const rated = await rateLimit.byUser(userId);
      if (!rated.ok) throw rateFailure(rated);
    }
    // Only the members that are set: the issuer treats an absent option and an undefined one alike.
    const grant: IssueOptions = { cid, policy: policy ?? V2_POLICY };
    // The token has no ClearKey type: the service's ClearKey path reads the site and cid from its
    // query, and the token keeps its default drm_type.
    if (drmType !== 'ClearKey') grant.drmType = drmType;
    if (userId !== undefined) grant.userId = userId;
    if (responseFormat !== undefined) grant.responseFormat = responseFormat;
    if (keyRotation !== undefined) grant.keyRotation = keyRotation;
    let text: string;
    try {
      const issued = issuer.issue(grant);
      text = typeof issued === 'string' ? issued : await issued;
    } catch (error) {
      // The policy is the site's: a token it cannot make is the site's bug, not the player's.
      if (error instanceof SiteKitError) {
        throw siteError(`the token could not be issued: ${error.message}`);
      }
      reportError(error, { drmType, cid });
      throw siteError(
        `issuing the token threw ${errorClassOf(error)}; the error itself went to onError`,
      );
    }
    if (watching) {
      emit({
        type: 'decision',
        drmType,
        cid,
        allow: true,
        status: 200,
        ...(userId === undefined ? {} : { userId }),
      });
    }
    return { text, renewal: renewalIntervalOf(grant.policy, undefined) };
  }

  /** The call to make upstream, and the renewal interval the answer announces to the player. */
  async function upstreamCall(
    exchange: Exchange,
    asked: ProxyRequest,
  ): Promise<{ call: UpstreamCall; renewal?: number | undefined }> {
    const { drm, kind } = asked;
    if (kind === 'certificate') {
      const url = config.certificateUrls[drm.drmType as 'Widevine' | 'FairPlay'];
      if (url === undefined) {
        throw new ProxyFailure(
          'NO_CERTIFICATE',
          `This proxy serves no ${drm.drmType} certificate: GET is for the Widevine and FairPlay certificates; a license request is a POST.`,
        );
      }
      return { call: { url, method: 'GET', headers: forwarded(exchange, {}), body: null } };
    }
    if (kind === 'server-info') {
      const bytes = body(await exchange.readBytes(config.maxBodyBytes));
      const headers = forwarded(exchange, { 'content-type': drm.contentType });
      return { call: { url: serverInfoUrl, method: 'POST', headers, body: bytes } };
    }
    const cid = asked.cid as string;
    // The site decides first: a request it refuses costs no body read. A length over the limit,
    // declared before any byte, needs no decision.
    if (Number(exchange.header('content-length') ?? 0) > config.maxBodyBytes) throw tooLarge();
    const { text: issued, renewal } = await token(exchange, drm.drmType, cid);
    if (drm.drmType === 'ClearKey') {
      // A GET of the ClearKey license URL with siteId and cid (the wire addendum, section 7): the
      // service answers every key of the cid; the CDM's request body is not passed on.
      const headers = forwarded(exchange, {});
      headers[config.header] = issued;
      const url = clearKeyUrl + encodeURIComponent(cid);
      return { call: { url, method: 'GET', headers, body: null }, renewal };
    }
    const bytes = body(await exchange.readBytes(config.maxBodyBytes));
    const headers = forwarded(exchange, { 'content-type': drm.contentType });
    headers[config.header] = issued;
    return { call: { url: licenseUrl, method: 'POST', headers, body: bytes }, renewal };
  }

  function relay(
    answer: UpstreamAnswer,
    cors: Record<string, string>,
    renewal: number | undefined,
  ): Answer {
    // The interval the token's policy set, as the token endpoint answers it: the player renews at
    // it (a page on another origin reads it only when exposed).
    const announced =
      renewal === undefined
        ? {}
        : {
            [RENEWAL_INTERVAL_HEADER]: String(renewal),
            ...(cors['access-control-allow-origin'] === undefined
              ? {}
              : { 'access-control-expose-headers': RENEWAL_INTERVAL_HEADER }),
          };
    return {
      status: answer.status,
      text: answer.bytes.byteLength === 0 ? null : answer.bytes,
      headers: {
        ...cors,
        ...announced,
        // Bytes without a type: the browser may not guess one (nosniff, and no type to sniff from).
        'content-type': answer.contentType ?? 'application/octet-stream',
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
      },
    };
  }

  // An exchange handler, so that toNodeListener serves it straight from the node message.
  return toWebHandler(async (exchange) => {
    let corsHeaders: Record<string, string> = {};
    try {
      const origin = exchange.header('origin');
      if (exchange.method === 'OPTIONS') {
        const preflight = cors.preflight(origin);
        if (preflight instanceof ProxyFailure) throw preflight;
        return preflight;
      }
      const checked = cors.check(exchange);
      if (checked instanceof ProxyFailure) throw checked;
      corsHeaders = checked;
      if (rateLimit !== undefined) {
        const rated = await rateLimit.byAddress(() => exchange.request(), exchange.peerAddress?.());
        if (!rated.ok) throw rateFailure(rated);
        corsHeaders = { ...corsHeaders, ...rated.headers };
      }
      const asked = readRequest(exchange.method, exchange.url);
      // Events are built only for a listener: a proxy nobody watches makes none per request.
      if (watching) {
        emit({
          type: 'request',
          kind: asked.kind,
          drmType: asked.drm.drmType,
          ...(asked.cid === undefined ? {} : { cid: asked.cid }),
        });
      }
      const { call, renewal } = await upstreamCall(exchange, asked);
      const started = watching ? Date.now() : 0;
      const answer = await transport(call, limits);
      // Read whatever the options: what is relayed never depends on who watches.
      const read = readAnswer(answer, asked.drm.drmType, config.unwrapJson);
      if (watching) {
        const unwrapped: Partial<Unwrapped> = read instanceof ProxyFailure ? {} : read;
        emit({
          type: 'upstream',
          kind: asked.kind,
          drmType: asked.drm.drmType,
          status: answer.status,
          ms: Date.now() - started,
          ...(unwrapped.errorCode === undefined ? {} : { errorCode: unwrapped.errorCode }),
          ...(unwrapped.deviceInfo === undefined ? {} : { deviceInfo: unwrapped.deviceInfo }),
        });
      }
      if (read instanceof ProxyFailure) throw read;
      return relay(read.answer, corsHeaders, renewal);
    } catch (error) {
      if (!(error instanceof ProxyFailure)) reportError(error, undefined);
      const failure =
        error instanceof ProxyFailure
          ? error
          : new ProxyFailure('INTERNAL_ERROR', 'The proxy failed unexpectedly; try again later.', {
              reason: `the proxy threw ${errorClassOf(error)}; the error itself went to onError`,
            });
      report(failure);
      return failureAnswer(failure, corsHeaders);
    }
  });

  function report(failure: ProxyFailure): void {
    const event: LicenseProxyEvent = {
      type: failure.status >= 500 ? 'error' : 'rejected',
      status: failure.status,
      code: failure.code,
      reason: failure.reason,
    };
    emit(event);
  }
}

// The default grant's policy: a v2 token (the issuer reads it, never changes it).
const V2_POLICY = Object.freeze({ policy_version: 2 as const });

function siteError(reason: string): ProxyFailure {
  return new ProxyFailure('SITE_ERROR', 'The site could not decide; try again later.', {
    reason,
  });
}

function rateFailure(rated: Extract<RateVerdict, { ok: false }>): ProxyFailure {
  return new ProxyFailure('RATE_LIMITED', rated.message, {
    status: rated.status,
    headers: rated.headers,
  });
}
