import * as z from 'zod';
import type { AsyncCrypto } from '../crypto/async-crypto.ts';
import type { SiteKeyInput } from '../crypto/site-key.ts';
import type { WebHandler } from '../http/web.ts';
import {
  createSiteEndpoint,
  type AuthorizeContext,
  type SiteEndpointCommonOptions,
  type SiteRefusal,
} from '../http/site-endpoint.ts';
import type { PlayerRequest } from '../http/site-request.ts';
import { mustBe } from '../schemas/must-be.ts';
import { customDataParts } from './custom-data-rules.ts';
import { customDataWithCryptoKey } from './async-custom-data.ts';

/** The site lets the user play in gateway mode: the custom data names the user and the order. */
export interface CustomDataGrant {
  allow: true;
  userId: string;
  oid?: string;
}

/**
 * Options of the endpoint that hands gateway-mode custom data to the player; the same shape as
 * {@link TokenHandlerOptions}.
 */
export interface CustomDataHandlerOptions extends SiteEndpointCommonOptions {
  siteId: string;
  siteKey: SiteKeyInput;
  /** As the token endpoint's: `context.signal` aborts at `authorizeTimeoutMs`. */
  authorize: (
    request: Request,
    asked: PlayerRequest,
    context: AuthorizeContext,
  ) => CustomDataGrant | SiteRefusal | Promise<CustomDataGrant | SiteRefusal>;
}

const grantSchema = z.strictObject({
  allow: z.literal(true),
  userId: z.string({ error: mustBe('a string') }),
  oid: z.string({ error: mustBe('a string') }).optional(),
}) as z.ZodType<CustomDataGrant>;

/**
 * The endpoint that hands gateway-mode custom data to the player: the same protocol and authorize
 * shape as the token endpoint, answered by the custom data string as text/plain.
 */
export function createCustomDataHandlerWith<K>(
  crypto: AsyncCrypto<K>,
  options: CustomDataHandlerOptions,
): WebHandler {
  const { siteId } = options;
  const key = crypto.key(options?.siteKey);
  // Checks siteId once, when the handler is made, rather than on the first request.
  customDataParts({ siteId, drmType: 'NCG', userId: '', cid: 'check' });
  return createSiteEndpoint<CustomDataGrant>({
    ...options,
    allowSchema: grantSchema,
    produce: (grant, asked) =>
      customDataWithCryptoKey(
        crypto,
        {
          siteId,
          drmType: asked.drmType,
          userId: grant.userId,
          cid: asked.cid,
          ...(grant.oid === undefined ? {} : { oid: grant.oid }),
        },
        key,
      ),
  });
}
