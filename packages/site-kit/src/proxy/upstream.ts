import { ProxyFailure } from './errors.ts';
import { readBytesLimited } from '../http/bytes-body.ts';

export interface UpstreamAnswer {
  status: number;
  contentType: string | null;
  bytes: Uint8Array<ArrayBuffer>;
}

export interface UpstreamCall {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body: Uint8Array<ArrayBuffer> | null;
}

export interface UpstreamLimits {
  deadlineMs: number;
  maxAnswerBytes: number;
}

export type Fetch = (request: Request) => Promise<Response>;

/**
 * One exchange with the license service, under one deadline that covers connecting, the answer's
 * head and its whole body: a service that answers slowly or trickles its body is cut at the
 * deadline. Redirects are not followed (the site fixed where requests go); the answer is read up to
 * `maxAnswerBytes`. Failures are ProxyFailures (upstreamFailure).
 */
export type Transport = (call: UpstreamCall, limits: UpstreamLimits) => Promise<UpstreamAnswer>;

/** The failures every transport answers, worded once. */
export function upstreamFailure(
  kind: 'timeout' | 'unreachable' | 'broken' | 'redirect' | 'too-large',
  limits: UpstreamLimits,
  status?: number,
): ProxyFailure {
  switch (kind) {
    case 'timeout':
      return new ProxyFailure(
        'UPSTREAM_TIMEOUT',
        `The license service did not answer within ${limits.deadlineMs} ms; try again.`,
      );
    case 'unreachable':
      return new ProxyFailure(
        'UPSTREAM_UNREACHABLE',
        'The license service could not be reached; try again later.',
      );
    case 'broken':
      return new ProxyFailure(
        'UPSTREAM_UNREACHABLE',
        'The connection to the license service broke while it answered; try again.',
      );
    case 'redirect':
      return new ProxyFailure(
        'UPSTREAM_BAD_ANSWER',
        `The license service answered a redirect (${status}), which the proxy does not follow.`,
      );
    case 'too-large':
      return new ProxyFailure(
        'UPSTREAM_ANSWER_TOO_LARGE',
        `The license service's answer is over the limit of ${limits.maxAnswerBytes} bytes.`,
      );
  }
}

/** The transport over a web fetch: Workers, Deno Deploy, or the site's own `fetch` option. */
export function fetchTransport(fetcher: Fetch): Transport {
  return (call, limits) => callUpstream(fetcher, call, limits);
}

async function callUpstream(
  fetcher: Fetch,
  call: UpstreamCall,
  limits: UpstreamLimits,
): Promise<UpstreamAnswer> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), limits.deadlineMs);
  const timedOut = () => upstreamFailure('timeout', limits);
  try {
    let response: Response;
    try {
      response = await fetcher(
        new Request(call.url, {
          method: call.method,
          headers: call.headers,
          body: call.body,
          redirect: 'manual',
          signal: controller.signal,
        }),
      );
    } catch {
      throw controller.signal.aborted ? timedOut() : upstreamFailure('unreachable', limits);
    }
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel().catch(() => undefined);
      throw upstreamFailure('redirect', limits, response.status);
    }
    const read = await readBytesLimited(
      response.body,
      response.headers.get('content-length'),
      limits.maxAnswerBytes,
    );
    if (!read.ok) {
      if (controller.signal.aborted) throw timedOut();
      throw upstreamFailure(read.tooLarge ? 'too-large' : 'broken', limits);
    }
    return {
      status: response.status,
      contentType: response.headers.get('content-type'),
      bytes: read.bytes,
    };
  } finally {
    clearTimeout(timer);
  }
}
