import { z } from 'zod';
import type { HashEncoding } from '../token/hash.ts';
import { createTokenIssuer } from '../token/issuer.ts';
import type { SiteCredentials } from '../token/keys.ts';
import { mustBe } from '../schemas/must-be.ts';
import type { TokenPolicy } from '../schemas/policy.ts';
import type { CorsOptions } from './cors.ts';
import type { WebHandler } from './web.ts';
import { createSiteEndpoint, type SiteEndpointEvent, type SiteRefusal } from './site-endpoint.ts';
import type { PlayerRequest } from './site-request.ts';

/** The site lets the user play: the token is issued for `userId` with `policy` as its token data. */
export interface TokenGrant {
  allow: true;
  /** Default "LICENSETOKEN", the spec's value for no user. */
  userId?: string;
  /** The token data in the spec's shape (playback_policy, security_policy, external_key). */
  policy?: TokenPolicy;
}

export interface TokenHandlerOptions extends SiteCredentials {
  /** Decides from the player's request (cookies, session) and what it asks for. */
  authorize: (
    request: Request,
    asked: PlayerRequest,
  ) => TokenGrant | SiteRefusal | Promise<TokenGrant | SiteRefusal>;
  hashEncoding?: HashEncoding;
  /** Off unless given. */
  cors?: CorsOptions;
  /** Default 16 KiB. */
  maxBodyBytes?: number;
  onEvent?: (event: SiteEndpointEvent) => void;
}

// The policy is checked by the issuer with the strict rules, so here it only has to be present or not.
const grantSchema = z.strictObject({
  allow: z.literal(true),
  userId: z
    .string({ error: mustBe('a string') })
    .min(1, 'must not be empty')
    .optional(),
  policy: z.unknown().optional(),
}) as unknown as z.ZodType<TokenGrant>;

/**
 * The site's token endpoint: POST `{"cid","drm_type"}` with the user's cookies, answered by the
 * license token as text/plain. The issuer (and its keys) is made once, here.
 */
export function createTokenHandler(options: TokenHandlerOptions): WebHandler {
  const { siteId, siteKey, accessKey, hashEncoding } = options;
  const issuer = createTokenIssuer({ siteId, siteKey, accessKey, hashEncoding });
  return createSiteEndpoint<TokenGrant>({
    ...options,
    allowSchema: grantSchema,
    produce: (grant, asked) =>
      issuer.issue({
        cid: asked.cid,
        drmType: asked.drmType,
        ...(grant.userId === undefined ? {} : { userId: grant.userId }),
        ...(grant.policy === undefined ? {} : { policy: grant.policy }),
      }),
  });
}
