import * as z from 'zod/mini';
import { SiteKitError } from '../errors.ts';
import { describeIssues } from '../schemas/issues.ts';
import { mustBe } from '../schemas/must-be.ts';
import type { Exchange } from './exchange.ts';

/**
 * What a site endpoint refuses before reading the body, because a player cannot have sent it: a
 * cross-site request forgery. A page of another site can make the user's browser POST with the
 * user's cookies and no preflight only with a "simple" content type (`text/plain`, a form); a
 * player sends `application/json`, which a foreign page can send only after a CORS preflight that
 * the site allows. And a browser says where a request comes from (`Sec-Fetch-Site`, `Origin`).
 */
export interface RequestGuardOptions {
  /** Media types accepted, parameters aside (`; charset=utf-8`); default `["application/json"]`. */
  contentTypes?: string[];
  /**
   * Refuse a request a browser marks as from another origin (`Sec-Fetch-Site: cross-site` or
   * `same-site`, or an `Origin` that is not the site's own) unless its Origin is in `cors.origins`;
   * default true. A request without either header (not a browser) is not refused by this check.
   */
  checkOrigin?: boolean;
}

const guardSchema = z.strictObject(
  {
    contentTypes: z.optional(
      z
        .array(
          z
            .string({ error: mustBe('a media type') })
            .check(
              z.regex(/^[\w.+-]+\/[\w.+-]+$/, 'must be a media type such as application/json'),
            ),
          { error: mustBe('an array of media types') },
        )
        .check(z.minLength(1, 'must name at least one media type (or set requestGuard: false)')),
    ),
    checkOrigin: z.optional(z.boolean({ error: mustBe('true or false') })),
  },
  { error: mustBe('an object, or false') },
);

export type GuardRefusal = { status: 403 | 415; reason: string; text: string };

/** Checks a request's provenance; undefined when it may go on. */
export type RequestGuard = (
  exchange: Exchange,
  allowedOrigin: (origin: string) => boolean,
) => GuardRefusal | undefined;

const OPEN: RequestGuard = () => undefined;

/** Checks the options once; `false` turns the guard off (a site that checks CSRF itself). */
export function createRequestGuard(options: RequestGuardOptions | false | undefined): RequestGuard {
  if (options === false) return OPEN;
  const parsed = guardSchema.safeParse(options ?? {});
  if (!parsed.success) {
    throw new SiteKitError('INVALID_INPUT', describeIssues(parsed.error, 'requestGuard'));
  }
  const types = new Set(
    (parsed.data.contentTypes ?? ['application/json']).map((t) => t.toLowerCase()),
  );
  const checkOrigin = parsed.data.checkOrigin ?? true;
  const wanted = [...types].join(' or ');

  return (exchange, allowedOrigin) => {
    const mediaType = (exchange.header('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
    if (mediaType === undefined || !types.has(mediaType)) {
      return {
        status: 415,
        reason: `content type ${JSON.stringify(mediaType ?? '')} is not ${wanted}`,
        text: `Unsupported media type: send the body as ${wanted}.`,
      };
    }
    if (!checkOrigin) return undefined;
    const reason = foreignRequest(exchange, allowedOrigin);
    if (reason === undefined) return undefined;
    return {
      status: 403,
      reason,
      text: 'Forbidden: this endpoint answers the pages of its own site and the origins it allows.',
    };
  };
}

/**
 * The origin rule of every site endpoint (token, custom data, license proxy): a request a browser
 * marks as from another origin (`Sec-Fetch-Site: cross-site` or `same-site`, or without it an
 * Origin that is not the host's own) is foreign unless its Origin is allowed. Undefined when it may
 * go on, else the reason for the site's events.
 */
export function foreignRequest(
  exchange: Exchange,
  allowedOrigin: (origin: string) => boolean,
): string | undefined {
  const origin = exchange.header('origin');
  if (origin !== null && allowedOrigin(origin)) return undefined;
  const fetchSite = exchange.header('sec-fetch-site')?.toLowerCase();
  const foreign =
    fetchSite === 'cross-site' ||
    fetchSite === 'same-site' ||
    (fetchSite === undefined && origin !== null && !sameOrigin(origin, exchange));
  if (!foreign) return undefined;
  return `a ${fetchSite ?? 'cross-origin'} request from origin ${origin ?? '(none)'} that cors.origins does not allow`;
}

/** Whether an Origin header names the host the request was sent to (browsers without Sec-Fetch-*). */
function sameOrigin(origin: string, exchange: Exchange): boolean {
  if (!URL.canParse(origin)) return false;
  const host = exchange.header('host') ?? new URL(exchange.request().url).host;
  return new URL(origin).host === host.toLowerCase();
}
