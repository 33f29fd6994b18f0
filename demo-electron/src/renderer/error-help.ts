import {
  findLicenseAuthError,
  LicenseAuthError,
  LicenseServiceError,
  TokenFetchError,
} from '@multidrm/player';
import type { ProxyErrorCode } from '@multidrm/site-kit/proxy';
import type { DemoError, PlayerName } from '../shared/contract.ts';

/**
 * What to change on this page for each refusal the flow can end in: the license service's codes
 * (digits, as the service and the emulator answer), then the player's and the page's own.
 */
const FIXES: Readonly<Record<string, string>> = {
  '6003':
    "The user already watches on as many screens as the site allows (max_stream_per_user): close a screen; its slot frees once it has not renewed for the renewal interval plus the emulator's grace.",
  '8002': "The site's gateway refused the user: pick a member-… user, or a free title.",
  '8711': 'Set an expire_date in the future, or use a duration instead.',
  '8710': 'Let the playback period start now.',
  '7001':
    'The license service holds no key for this title: turn "external key" on so the site sends it.',
  '6004': 'The key the site sent does not match the content: check the external key.',
  '7011': "The token is older than the service's window (600 s): press Play again for a new one.",
  '7019': 'Site and license service use different access keys.',
  '7008': 'Site and license service use different site keys.',
  '1003': 'The license service does not know this site ID: check the site ID setting.',
  '6002': 'Correct the policy as the message says.',
  TOKEN_FETCH_FAILED:
    'The site refused this user for this title: pick a member-… user, or a free title.',
  TOKEN_TIMEOUT: 'The site did not answer in time: check that the demo stack is running.',
  INVALID_POLICY: 'Correct the policy as the message says.',
  LICENSE_REQUEST_FAILED:
    'The license service did not answer with a license or a refusal: check that it runs and its URL.',
  INVALID_OPTIONS: 'This player cannot play with these settings: pick another player.',
};

/**
 * The site's license proxy's own failures (proxy mode), its `{code,message}` answers: what to change
 * for each. Keyed by site-kit's type, so a code it adds must be added here.
 */
const PROXY_FIXES: Readonly<Record<ProxyErrorCode, string>> = {
  SITE_REFUSED: 'The site refused this user for this title: pick a member-… user, or a free title.',
  SITE_ERROR: "The site could not decide (its authorize failed): see the main process's log.",
  SITE_TIMEOUT: 'The site did not decide in time: press Play again.',
  UPSTREAM_UNREACHABLE:
    "The site's proxy could not reach the license service: check that the emulator runs.",
  UPSTREAM_TIMEOUT:
    "The license service did not answer the site's proxy in time (10 s): try again, or pick another fault.",
  UPSTREAM_ERROR:
    'The license service failed (HTTP 5xx; the faults menu can inject one): try again, or pick another fault.',
  UPSTREAM_BAD_ANSWER:
    'The license service answered the proxy with a redirect, a page or a license it cannot read: check its URL.',
  UPSTREAM_ANSWER_TOO_LARGE: "The license service's answer was over the proxy's limit (1 MiB).",
  ORIGIN_NOT_ALLOWED:
    "Only the demo page may call the site's proxy: open the demo at the address it printed.",
  METHOD_NOT_ALLOWED: 'The proxy takes POST (a license) and GET (a certificate).',
  UNKNOWN_DRM: 'The player named no DRM the proxy knows (?drmType=): pick another player.',
  BAD_CID: 'The player named no usable content ID (?cid=): pick a title from the list.',
  NO_CERTIFICATE: 'The proxy has no certificate for that DRM.',
  BAD_BODY: 'The license request reached the proxy empty: press Play again.',
  BODY_TOO_LARGE: "The license request was over the proxy's limit (64 KiB).",
  RATE_LIMITED:
    'Too many license requests from this page in a short time: wait a moment and press Play again.',
  INTERNAL_ERROR: "The site's proxy failed: see the main process's log and press Play again.",
};

export function fixFor(code: string, fallback: string): string {
  return FIXES[code] ?? PROXY_FIXES[code as ProxyErrorCode] ?? fallback;
}

const isProxyCode = (code: string): code is ProxyErrorCode => Object.hasOwn(PROXY_FIXES, code);

/**
 * The proxy's own answer inside an error of the player, when there is one: the player reports the
 * site's decision (SITE_*) as a token fetch failure whose reason is "CODE: message", and the rest
 * as a failed license request whose message names "HTTP <status> (CODE: message)". The player has
 * no field for the proxy's code, so it is read from those (the player's proxy.ts writes them).
 */
function proxyAnswer(
  auth: LicenseAuthError,
): { code: ProxyErrorCode; status: number | undefined; message: string } | undefined {
  if (auth instanceof TokenFetchError) {
    const said = /^([A-Z_]+): ([\s\S]*)$/.exec(auth.reason ?? '');
    if (said && isProxyCode(said[1] as string)) {
      return { code: said[1] as ProxyErrorCode, status: auth.status, message: said[2] as string };
    }
    return undefined;
  }
  const said = /^The license proxy \S+ answered HTTP (\d+) \(([A-Z_]+): ([\s\S]*?)\) for the /.exec(
    auth.message,
  );
  if (said && isProxyCode(said[2] as string)) {
    return { code: said[2] as ProxyErrorCode, status: Number(said[1]), message: said[3] as string };
  }
  return undefined;
}

/** The code, message and fix of whatever ended a play attempt with `player`. */
export function describeFailure(error: unknown, player: PlayerName): DemoError {
  const auth = findLicenseAuthError(error);
  const proxied = auth && proxyAnswer(auth);
  if (proxied) {
    return {
      code: proxied.code,
      message: `The site's license proxy answered${proxied.status === undefined ? '' : ` HTTP ${proxied.status}`}: ${proxied.message}`,
      fix: fixFor(proxied.code, 'See the message.'),
    };
  }
  if (auth instanceof LicenseServiceError) {
    // 8002 carries the site's own refusal; show it as the site said it, not as JSON text.
    const message =
      auth.siteErrorCode === undefined
        ? auth.serviceMessage
        : `The site refused: code ${auth.siteErrorCode}${auth.siteErrorMessage ? `, "${auth.siteErrorMessage}"` : ''}.`;
    return {
      code: auth.errorCode,
      message,
      fix: fixFor(auth.errorCode, 'Read the message: the license service says what it expects.'),
      ...(typeof auth.detail === 'string' ? { explanation: auth.detail } : {}),
    };
  }
  if (auth instanceof TokenFetchError) {
    return {
      code: auth.code,
      message:
        auth.status === undefined
          ? auth.message
          : `HTTP ${auth.status}: ${auth.reason ?? auth.message}`,
      fix: fixFor(auth.code, "Check the site's token endpoint."),
    };
  }
  if (auth)
    return { code: auth.code, message: auth.message, fix: fixFor(auth.code, 'See the message.') };
  return (
    PLAYER_ERRORS[player](error) ?? {
      code: 'UNEXPECTED',
      message: error instanceof Error ? error.message : String(error),
      fix: 'Reload the page and try again.',
    }
  );
}

const CODEC_OR_KEY_SYSTEM = 'the browser may lack ClearKey or the codec';

/**
 * Each player's own errors, where no error of @multidrm/player is inside: the manifest or a segment
 * did not load, the media did not decode. Read from the shape each player reports them in.
 */
const PLAYER_ERRORS: Readonly<Record<PlayerName, (error: unknown) => DemoError | undefined>> = {
  shaka(error) {
    type ShakaError = { code?: unknown; category?: unknown; data?: unknown[] };
    const e = error as ShakaError | null;
    if (typeof e?.code !== 'number') return undefined;
    // A failed request (6007 for a license) holds the HTTP error (1001: uri, status, ...).
    const http = e.data?.find((inner) => (inner as ShakaError | null)?.code === 1001);
    const status = (http as ShakaError | undefined)?.data?.[1];
    return {
      code: `SHAKA_${e.code}`,
      message: `Shaka Player stopped with its error ${e.code} (category ${String(e.category ?? '?')})${typeof status === 'number' ? `: a request was answered with HTTP ${status}` : ''}.`,
      fix:
        typeof status === 'number'
          ? 'A server failed the request: check that the license service and the content server run.'
          : `Look the code up in Shaka Player's error list; ${CODEC_OR_KEY_SYSTEM}.`,
    };
  },
  hls(error) {
    const e = error as { type?: unknown; details?: unknown; error?: { message?: unknown } } | null;
    if (typeof e?.details !== 'string') return undefined;
    const cause = typeof e.error?.message === 'string' ? `: ${e.error.message}` : '';
    return {
      code: `HLS_${e.details}`,
      message: `hls.js stopped with ${String(e.type)} ${e.details}${cause}.`,
      fix: `Look the details up in hls.js's error list; ${CODEC_OR_KEY_SYSTEM}.`,
    };
  },
  dash(error) {
    const e = (error as { error?: { code?: unknown; message?: unknown } } | null)?.error;
    if (typeof e?.code !== 'number') return undefined;
    return {
      code: `DASH_${e.code}`,
      message: `dash.js stopped with its error ${e.code}: ${String(e.message ?? '')}`.trim(),
      fix: `Look the code up in dash.js's error list; ${CODEC_OR_KEY_SYSTEM}.`,
    };
  },
  videojs(error) {
    const e = error as { code?: unknown; message?: unknown } | null;
    if (typeof e?.code !== 'number') return undefined;
    return {
      code: `VIDEOJS_${e.code}`,
      message: `video.js stopped with media error ${e.code}: ${String(e.message ?? '')}`.trim(),
      fix: `Code 4 is a source it cannot play, 5 a key it did not get; ${CODEC_OR_KEY_SYSTEM}.`,
    };
  },
};
