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

// What the deadline settles to, raced against each step of the exchange.
const EXPIRED = Symbol('expired');

/**
 * The exchange under a deadline of its own. The abort signal alone is not enough on Node: the
 * Request that fetch copies follows it only through a WeakRef, so after a garbage collection an
 * abort can reach nothing and a silent service would hold the client forever. So each step (the
 * answer's head, each chunk of its body) races a timer the proxy holds; the signal still tells a
 * fetch that listens, and a head that comes late has its body cancelled.
 */
async function callUpstream(
  fetcher: Fetch,
  call: UpstreamCall,
  limits: UpstreamLimits,
): Promise<UpstreamAnswer> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<typeof EXPIRED>((expire) => {
    timer = setTimeout(() => {
      controller.abort();
      expire(EXPIRED);
    }, limits.deadlineMs);
  });
  const timedOut = () => upstreamFailure('timeout', limits);
  try {
    // Promise.resolve: a fetch that throws at once is unreachable, as one that rejects.
    const fetching = Promise.resolve().then(() =>
      fetcher(
        new Request(call.url, {
          method: call.method,
          headers: call.headers,
          body: call.body,
          redirect: 'manual',
          signal: controller.signal,
        }),
      ),
    );
    let response: Response | typeof EXPIRED;
    try {
      response = await Promise.race([fetching, deadline]);
    } catch {
      throw controller.signal.aborted ? timedOut() : upstreamFailure('unreachable', limits);
    }
    if (response === EXPIRED) {
      fetching.then(
        (late) => late.body?.cancel().catch(() => undefined),
        () => undefined,
      );
      throw timedOut();
    }
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel().catch(() => undefined);
      throw upstreamFailure('redirect', limits, response.status);
    }
    const read = await readBytesLimited(
      response.body,
      response.headers.get('content-length'),
      limits.maxAnswerBytes,
      deadline,
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
