import * as z from 'zod/mini';
import { SiteKitError } from '../errors.ts';
import { describeIssues } from '../schemas/issues.ts';
import { mustBe } from '../schemas/must-be.ts';
import { corsOptionFields } from './cors-schema.ts';
import { methodNotAllowed, type Answer, type Exchange } from './exchange.ts';
import { RENEWAL_INTERVAL_HEADER } from './renewal-interval.ts';

/** Default name of the header that carries gateway-mode custom data to the license service. */
export const CUSTOM_DATA_HEADER = 'x-drm-custom-data';

/**
 * Cross-origin access to a site endpoint, for a player served from another origin than the site's
 * API.
 */
export interface CorsOptions {
  /** Exact origins allowed to call the endpoint, e.g. "https://player.example". */
  origins: string[];
  /** Allow cookies on cross-origin calls (the user's session); default false. */
  credentials?: boolean;
  /** How long a browser may cache the preflight; default 600. */
  maxAgeSeconds?: number;
  /** The custom data header to allow and expose; default "x-drm-custom-data". */
  customDataHeader?: string;
}

const corsSchema = z.strictObject(
  {
    ...corsOptionFields('must be an origin: scheme://host[:port], no path or trailing slash'),
    customDataHeader: z.optional(
      z
        .string({ error: mustBe('a header name') })
        .check(z.regex(/^[A-Za-z0-9-]+$/, 'must be a header name (letters, digits, -)')),
    ),
  },
  { error: mustBe('an object') },
);

/** Headers to add to an answer, or to a preflight, for a given request. */
export interface Cors {
  /** Headers for a normal answer: empty when the origin is not allowed (the browser then blocks it). */
  headers(exchange: Exchange): Record<string, string>;
  /** The answer to an OPTIONS preflight. */
  preflight(exchange: Exchange): Answer;
  /** Whether an Origin header names an origin in `origins`. */
  allows(origin: string): boolean;
}

const NO_CORS: Cors = {
  headers: () => ({}),
  preflight: () => methodNotAllowed('POST'),
  allows: () => false,
};

/** Checks CORS options once; without options, CORS is off and no header is ever added. */
export function createCors(options: CorsOptions | undefined): Cors {
  if (options === undefined) return NO_CORS;
  const parsed = corsSchema.safeParse(options);
  if (!parsed.success)
    throw new SiteKitError('INVALID_INPUT', describeIssues(parsed.error, 'cors'));
  const { origins, credentials = false, maxAgeSeconds = 600 } = parsed.data;
  const header = (parsed.data.customDataHeader ?? CUSTOM_DATA_HEADER).toLowerCase();
  // What a player on another origin may read of the answer: the custom data, the renewal interval.
  const exposed = `${header}, ${RENEWAL_INTERVAL_HEADER}`;
  const allowed = new Set(origins);

  const headers = (exchange: Exchange): Record<string, string> => {
    const origin = exchange.header('origin');
    if (origin === null || !allowed.has(origin)) return { vary: 'Origin' };
    const out: Record<string, string> = {
      'access-control-allow-origin': origin,
      'access-control-expose-headers': exposed,
      vary: 'Origin',
    };
    if (credentials) out['access-control-allow-credentials'] = 'true';
    return out;
  };

  return {
    headers,
    allows: (origin) => allowed.has(origin),
    preflight(exchange) {
      const base = headers(exchange);
      if (base['access-control-allow-origin'] === undefined) {
        return { status: 403, text: null, headers: base };
      }
      return {
        status: 204,
        text: null,
        headers: {
          ...base,
          'access-control-allow-methods': 'POST, OPTIONS',
          'access-control-allow-headers': `content-type, ${header}`,
          'access-control-max-age': String(maxAgeSeconds),
        },
      };
    },
  };
}
