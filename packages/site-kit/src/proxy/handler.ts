import { SiteKitError } from '../errors.ts';
import type { IssuesTokens } from '../http/token-handler.ts';
import type { IssueOptions } from '../token/issue-rules.ts';
import type { Answer, Exchange } from '../http/exchange.ts';
import { toWebHandler, type WebHandler } from '../http/web.ts';
import type { DrmType } from '../schemas/drm-type.ts';
import type { SiteCredentials } from '../token/keys.ts';
import { createProxyCors } from './cors.ts';
import { decideWithin, readDecision } from './decision.ts';
import { proxyDrms } from './drm.ts';
import { failureAnswer, ProxyFailure } from './errors.ts';
import { eventEmitter, type LicenseProxyEvent } from './events.ts';
import { checkProxyOptions, type LicenseProxyOptions } from './options.ts';
import { readProxyRequest, type ProxyRequest } from './request.ts';
import {
  fetchTransport,
  type Transport,
  type UpstreamAnswer,
  type UpstreamCall,
} from './upstream.ts';
import { readAnswer } from './unwrap.ts';
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
  const drms = proxyDrms();
  const cors = createProxyCors(options.cors, config.forwardHeaders);
  const emit = eventEmitter(options.onEvent);
  const watching = options.onEvent !== undefined;
  const transport =
    options.fetch === undefined ? defaultTransport() : fetchTransport(options.fetch);
  const { authorize, rateLimit } = options;
  const limits = { deadlineMs: config.upstreamMs, maxAnswerBytes: config.maxAnswerBytes };
  const licenseUrl = config.licenseUrl.href;
  const serverInfo = new URL(config.licenseUrl);
  serverInfo.searchParams.set('mode', 'getserverinfo');
  const serverInfoUrl = serverInfo.href;

  function forwarded(exchange: Exchange, headers: Record<string, string>): Record<string, string> {
    for (const name of config.forwardHeaders) {
      const value = exchange.header(name);
      if (value !== null) headers[name] = value;
    }
    return headers;
  }

  async function body(exchange: Exchange): Promise<Uint8Array<ArrayBuffer>> {
    const read = await exchange.readBytes(config.maxBodyBytes);
    if (read.ok && read.bytes.byteLength > 0) return read.bytes;
    if (!read.ok && read.tooLarge) {
      throw new ProxyFailure(
        'BODY_TOO_LARGE',
        `The license request body is over the limit of ${config.maxBodyBytes} bytes.`,
      );
    }
    throw new ProxyFailure(
      'BAD_BODY',
      read.ok
        ? 'The license request body is empty: send the CDM message (FairPlay: spc=<base64 SPC>).'
        : 'The license request body could not be read.',
    );
  }

  async function token(exchange: Exchange, drmType: DrmType, cid: string): Promise<string> {
    let decided: unknown;
    try {
      decided = decideWithin(
        () => authorize(exchange.request(), { drmType, cid }),
        config.authorizeMs,
      );
      if (decided instanceof Promise) decided = await decided;
    } catch (error) {
      if (error instanceof ProxyFailure) throw error;
      throw siteError(`authorize threw: ${firstLine(error)}`);
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
    const grant: IssueOptions = { cid, drmType, policy: policy ?? V2_POLICY };
    if (userId !== undefined) grant.userId = userId;
    if (responseFormat !== undefined) grant.responseFormat = responseFormat;
    if (keyRotation !== undefined) grant.keyRotation = keyRotation;
    let text: string;
    try {
      const issued = issuer.issue(grant);
      text = typeof issued === 'string' ? issued : await issued;
    } catch (error) {
      // The policy is the site's: a token it cannot make is the site's bug, not the player's.
      const why = error instanceof SiteKitError ? error.message : firstLine(error);
      throw siteError(`the token could not be issued: ${why}`);
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
    return text;
  }

  async function upstreamCall(exchange: Exchange, asked: ProxyRequest): Promise<UpstreamCall> {
    const { drm, kind } = asked;
    if (kind === 'certificate') {
      const url = config.certificateUrls[drm.drmType as 'Widevine' | 'FairPlay'];
      if (url === undefined) {
        throw new ProxyFailure(
          'NO_CERTIFICATE',
          `This proxy serves no ${drm.drmType} certificate: GET is for the Widevine and FairPlay certificates; a license request is a POST.`,
        );
      }
      return { url, method: 'GET', headers: forwarded(exchange, {}), body: null };
    }
    const bytes = await body(exchange);
    const headers = forwarded(exchange, { 'content-type': drm.contentType });
    if (kind === 'server-info') return { url: serverInfoUrl, method: 'POST', headers, body: bytes };
    headers[config.header] = await token(exchange, drm.drmType, asked.cid as string);
    return { url: licenseUrl, method: 'POST', headers, body: bytes };
  }

  function relay(answer: UpstreamAnswer, cors: Record<string, string>): Answer {
    return {
      status: answer.status,
      text: answer.bytes.byteLength === 0 ? null : answer.bytes,
      headers: {
        ...cors,
        ...(answer.contentType === null ? {} : { 'content-type': answer.contentType }),
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
      const checked = cors.check(origin, exchange.header('sec-fetch-site'));
      if (checked instanceof ProxyFailure) throw checked;
      corsHeaders = checked;
      if (rateLimit !== undefined) {
        const rated = await rateLimit.byAddress(() => exchange.request(), exchange.peerAddress?.());
        if (!rated.ok) throw rateFailure(rated);
        corsHeaders = { ...corsHeaders, ...rated.headers };
      }
      const asked = readProxyRequest(exchange.method, exchange.url, drms);
      // Events are built only for a listener: a proxy nobody watches makes none per request.
      if (watching) {
        emit({
          type: 'request',
          kind: asked.kind,
          drmType: asked.drm.drmType,
          ...(asked.cid === undefined ? {} : { cid: asked.cid }),
        });
      }
      const call = await upstreamCall(exchange, asked);
      const started = watching ? Date.now() : 0;
      const answer = await transport(call, limits);
      if (!config.unwrapJson && !watching) return relay(answer, corsHeaders);
      const read = readAnswer(answer, asked.drm.drmType, config.unwrapJson);
      if (watching) {
        emit({
          type: 'upstream',
          kind: asked.kind,
          drmType: asked.drm.drmType,
          status: answer.status,
          ms: Date.now() - started,
          ...(read.errorCode === undefined ? {} : { errorCode: read.errorCode }),
          ...(read.deviceInfo === undefined ? {} : { deviceInfo: read.deviceInfo }),
        });
      }
      return relay(read.answer, corsHeaders);
    } catch (error) {
      const failure =
        error instanceof ProxyFailure
          ? error
          : new ProxyFailure('INTERNAL_ERROR', 'The proxy failed unexpectedly; try again later.', {
              reason: `the proxy failed: ${firstLine(error)}`,
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

function firstLine(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message.split('\n')[0] ?? ''}`;
  return typeof error;
}
