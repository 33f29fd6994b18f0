import type * as z from 'zod';
import type { HashEncoding } from '../token/hash-input.ts';
import type { AnyTokenPolicy, IssueOptions } from '../token/issue-rules.ts';
import type { SiteCredentials } from '../token/keys.ts';
import type { ResponseFormat } from '../schemas/token.ts';
import { tokenGrantSchema } from './decision-schemas.ts';
import type { WebHandler } from './web.ts';
import {
  createSiteEndpoint,
  type AuthorizeContext,
  type SiteEndpointCommonOptions,
  type SiteRefusal,
} from './site-endpoint.ts';
import type { PlayerRequest } from './site-request.ts';

/** The site lets the user play: the token is issued for `userId` with `policy` as its token data. */
export interface TokenGrant {
  allow: true;
  /** Default "LICENSETOKEN", the spec's value for no user. */
  userId?: string;
  /**
   * The policy, and so the token's version: a v2 policy (`policy_version: 2`, the service's current
   * format) makes a v2 token, v1 token data (or none) a v1 token.
   */
  policy?: AnyTokenPolicy;
  /** v2 only; default "original". */
  responseFormat?: ResponseFormat;
  /** v2 only; default false. */
  keyRotation?: boolean;
}

/**
 * Options of the site's token endpoint: the site's credentials, its `authorize` decision and the
 * HTTP limits.
 */
export interface TokenHandlerOptions extends SiteCredentials, SiteEndpointCommonOptions {
  /**
   * Decides from the player's request (cookies, session) and what it asks for; `context.signal`
   * aborts at `authorizeTimeoutMs`.
   */
  authorize: (
    request: Request,
    asked: PlayerRequest,
    context: AuthorizeContext,
  ) => TokenGrant | SiteRefusal | Promise<TokenGrant | SiteRefusal>;
  hashEncoding?: HashEncoding;
}

const grantSchema = tokenGrantSchema as unknown as z.ZodType<TokenGrant>;

/** An issuer of either kind: what the token endpoint needs of it. */
export interface IssuesTokens {
  issue(options: IssueOptions): string | Promise<string>;
}

/**
 * The site's token endpoint: POST `{"cid","drm_type"}` with the user's cookies, answered by the
 * license token as text/plain. The issuer (and its keys) is made once, here, by `makeIssuer`.
 */
export function createTokenHandlerWith(
  makeIssuer: (credentials: SiteCredentials) => IssuesTokens,
  options: TokenHandlerOptions,
): WebHandler {
  const { siteId, siteKey, accessKey, hashEncoding } = options;
  const issuer = makeIssuer({ siteId, siteKey, accessKey, hashEncoding });
  return createSiteEndpoint<TokenGrant>({
    ...options,
    allowSchema: grantSchema,
    produce: ({ allow: _allow, ...grant }, asked) =>
      issuer.issue({ cid: asked.cid, drmType: asked.drmType, ...defined(grant) }),
  });
}

/** The members that are set: the issuer treats an absent option and an undefined one alike anyway. */
function defined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
