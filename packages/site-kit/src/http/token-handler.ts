import type * as z from 'zod/mini';
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
import { isPlainObject } from '../schemas/plain-object.ts';
import {
  checkRenewalInterval,
  RENEWAL_INTERVAL_HEADER,
  renewalIntervalOf,
} from './renewal-interval.ts';

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
  /**
   * The renewal interval, in whole seconds, to announce with tokens whose policy sets none: the
   * answer carries `x-renewal-interval`, which the player renews its licenses by. A v2 policy's
   * `playback_policy.renewal_duration` wins, as the service counts the stream by it. Default: none.
   */
  renewalIntervalSeconds?: number;
}

const grantSchema = tokenGrantSchema as unknown as z.ZodMiniType<TokenGrant>;

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
  const defaultInterval = checkRenewalInterval(options.renewalIntervalSeconds);
  return createSiteEndpoint<TokenGrant>({
    ...options,
    allowSchema: grantSchema,
    readAllow: readGrant,
    produce: (grant, asked) => issuer.issue(issueOptions(grant, asked)),
    answerHeaders: (grant) => {
      const seconds = renewalIntervalOf(grant.policy, defaultInterval);
      return seconds === undefined ? undefined : { [RENEWAL_INTERVAL_HEADER]: String(seconds) };
    },
  });
}

/** The members that are set: the issuer treats an absent option and an undefined one alike anyway. */
function issueOptions(grant: TokenGrant, asked: PlayerRequest): IssueOptions {
  const options: IssueOptions = { cid: asked.cid, drmType: asked.drmType };
  if (grant.userId !== undefined) options.userId = grant.userId;
  if (grant.policy !== undefined) options.policy = grant.policy;
  if (grant.responseFormat !== undefined) options.responseFormat = grant.responseFormat;
  if (grant.keyRotation !== undefined) options.keyRotation = grant.keyRotation;
  return options;
}

const GRANT_MEMBERS = new Set(['allow', 'userId', 'policy', 'responseFormat', 'keyRotation']);

/**
 * tokenGrantSchema's reading of a plain, well-formed grant, by hand (the issuer checks the policy and
 * the options); undefined when not sure, which leaves the grant to the schema.
 */
export function readGrant(value: unknown): TokenGrant | undefined {
  if (!isPlainObject(value)) return undefined;
  const { allow, userId, policy, responseFormat, keyRotation } = value as Record<string, unknown>;
  if (allow !== true) return undefined;
  if (userId !== undefined && (typeof userId !== 'string' || userId.length === 0)) return undefined;
  for (const key in value) if (!GRANT_MEMBERS.has(key)) return undefined;
  return {
    allow,
    userId: userId as string | undefined,
    policy: policy as AnyTokenPolicy | undefined,
    responseFormat: responseFormat as ResponseFormat | undefined,
    keyRotation: keyRotation as boolean | undefined,
  };
}
