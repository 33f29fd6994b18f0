// The site under load: site-kit's gateway and token handlers on one node:http server, with decisions
// that depend on each request, so that an answer given to the wrong request (or a damaged one) is
// caught by the checks below. Shared by the load test and the load benchmark.
import { createServer, type IncomingMessage, type ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createGatewayHandler,
  createTokenHandler,
  createTokenVerifier,
  decodeGatewayResponse,
  encodeGatewayRequest,
  toNodeListener,
  type DrmType,
} from '@multidrm/site-kit';
import { quantile, runLoad, type LoadRequest } from '../../../packages/site-kit/bench/load.ts';

// Made up for these runs: 32 ASCII characters, as a site key must be.
export const LOAD_SITE = {
  siteId: 'LOADSITE',
  siteKey: 'R8tY2uI4oP6aS8dF0gH2jK4lZ6xC8vB0',
  accessKey: 'load-site-access-key',
};

const DRM_TYPES: readonly DrmType[] = ['Widevine', 'PlayReady', 'FairPlay', 'NCG'];
const FORM = 'application/x-www-form-urlencoded';

// What the site grants for request i: the duration encodes i, so a crossed answer cannot pass.
const durationOf = (i: number) => 60 + (i % 100_000);
const indexOf = (id: string) => Number(id.slice(id.lastIndexOf('-') + 1));
// Unique per request: an answer that carries another request's nonce is caught.
const loadNonce = (i: number) => `nonce-${i}-${(i * 2654435761) >>> 0}`;

function gatewayListener() {
  return toNodeListener(
    createGatewayHandler({
      siteKey: LOAD_SITE.siteKey,
      authorize: (request) => ({
        allow: true,
        playback_policy: { limit: true, duration: durationOf(indexOf(request.user_id)) },
      }),
    }),
  );
}

function tokenListener() {
  return toNodeListener(
    createTokenHandler({
      ...LOAD_SITE,
      authorize: (_request, { cid }) => ({
        allow: true,
        userId: `user-${indexOf(cid)}`,
        policy: { playback_policy: { limit: true, duration: durationOf(indexOf(cid)) } },
      }),
    }),
  );
}

/** One server, two paths: /gateway and /token. */
export function loadSiteListener(): (req: IncomingMessage, res: ServerResponse) => void {
  const gateway = gatewayListener();
  const token = tokenListener();
  return (req, res) => {
    if (req.url === '/gateway') void gateway(req, res);
    else if (req.url === '/token') void token(req, res);
    else res.writeHead(404).end();
  };
}

export async function startLoadSite(): Promise<{ server: Server; port: number }> {
  const server = createServer(loadSiteListener());
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

export type LoadKind = 'gateway' | 'token';

export function loadRequest(kind: LoadKind, i: number): LoadRequest {
  if (kind === 'gateway') {
    const body = encodeGatewayRequest(
      {
        format: 'json',
        user_id: `user-${i}`,
        cid: `movie-${i % 50}`,
        nonce: loadNonce(i),
        drm_type: DRM_TYPES[i % 4] as DrmType,
      },
      LOAD_SITE.siteKey,
    );
    return { path: '/gateway', body, contentType: FORM };
  }
  const body = JSON.stringify({ cid: `movie-${i}`, drm_type: DRM_TYPES[i % 4] });
  return { path: '/token', body, contentType: 'application/json' };
}

const verifier = createTokenVerifier(LOAD_SITE);

/** Why the answer to request i is wrong, or undefined when it is right. */
export function checkAnswer(kind: LoadKind, i: number, body: string): string | undefined {
  try {
    if (kind === 'gateway') {
      const answer = decodeGatewayResponse(body, 'json', LOAD_SITE.siteKey);
      if (answer.format !== 'json') return 'not a JSON answer';
      if (answer.error_code !== '0000') return `error_code ${answer.error_code}`;
      if (answer.nonce !== loadNonce(i)) return `nonce ${answer.nonce}`;
      if (answer.playback_policy?.duration !== durationOf(i))
        return 'the policy of another request';
      return undefined;
    }
    const token = verifier.verify(body);
    if (token.cid !== `movie-${i}`) return `cid ${token.cid}`;
    if (token.userId !== `user-${i}`) return `user ${token.userId}`;
    if (token.drmType !== DRM_TYPES[i % 4]) return `drm_type ${token.drmType}`;
    if (token.version !== 1 || token.policy.playback_policy?.duration !== durationOf(i))
      return 'another policy';
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

export interface LoadFigures {
  kind: LoadKind;
  requests: number;
  /** Network errors and statuses other than 200. */
  errors: number;
  /** Answers checked (decrypted or verified) and how many were wrong. */
  checked: number;
  wrong: number;
  /** Up to 5 descriptions of what went wrong. */
  problems: string[];
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
  max: number;
}

/**
 * Sends `count` requests of one kind at `concurrency` and checks every `checkEvery`-th answer
 * (1: every answer). `first` offsets the request indexes, so warm-up and run do not repeat nonces.
 */
export async function loadSite(
  port: number,
  kind: LoadKind,
  options: { count: number; concurrency: number; checkEvery?: number; first?: number },
): Promise<LoadFigures> {
  const { count, concurrency, checkEvery = 1, first = 0 } = options;
  const latencies: number[] = [];
  const problems: string[] = [];
  let errors = 0;
  let networkErrors = 0;
  let checked = 0;
  let wrong = 0;
  const problem = (text: string) => {
    if (problems.length < 5) problems.push(text);
  };
  const started = performance.now();
  await runLoad({
    port,
    concurrency,
    keepBodies: true,
    next: (n) => (n < count ? loadRequest(kind, first + n) : undefined),
    onAnswer: ({ index, status, body, ms }) => {
      latencies.push(ms);
      if (status !== 200) {
        errors += 1;
        problem(`#${first + index}: HTTP ${status} ${body.slice(0, 120)}`);
        return;
      }
      if (index % checkEvery !== 0) return;
      checked += 1;
      const why = checkAnswer(kind, first + index, body);
      if (why !== undefined) {
        wrong += 1;
        problem(`#${first + index}: ${why}`);
      }
    },
    onError: (index, error) => {
      errors += 1;
      networkErrors += 1;
      problem(`#${first + index}: ${error.message}`);
    },
  });
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    kind,
    requests: latencies.length + networkErrors,
    errors,
    checked,
    wrong,
    problems,
    seconds,
    rps: count / seconds,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    max: latencies.at(-1) ?? NaN,
  };
}
