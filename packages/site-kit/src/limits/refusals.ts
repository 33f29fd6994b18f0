import { SiteKitError } from '../errors.ts';

/** Why the limits refused a license. */
export type LimitRefusalKind =
  'STREAM_LIMIT' | 'DEVICE_LIMIT' | 'USER_BANNED' | 'DEVICE_BANNED' | 'LIMITS_UNAVAILABLE';

/**
 * The codes a refusal carries in the gateway answer (the service passes them to the player inside
 * its 8002 refusal). The service documents none for these: they are the project's own, 4 digits
 * (both answer formats carry them) outside every documented range and site-kit's own 9001-9003,
 * and a site may choose others (`codes`).
 *
 * | kind               | default | meaning                                                          |
 * |--------------------|---------|------------------------------------------------------------------|
 * | STREAM_LIMIT       | 6101    | the user has `maxStreams` streams that renew in time             |
 * | DEVICE_LIMIT       | 6102    | the user has `maxDevices` other devices registered               |
 * | USER_BANNED        | 6103    | the site banned the user                                          |
 * | DEVICE_BANNED      | 6104    | the site banned the device                                        |
 * | LIMITS_UNAVAILABLE | 6105    | the store did not answer in time and the site chose to refuse     |
 */
export const LIMIT_ERROR_CODES: Record<LimitRefusalKind, string> = {
  STREAM_LIMIT: '6101',
  DEVICE_LIMIT: '6102',
  USER_BANNED: '6103',
  DEVICE_BANNED: '6104',
  LIMITS_UNAVAILABLE: '6105',
};

/** The sentence the player shows for each kind, unless the site words its own (`messages`). */
export const LIMIT_MESSAGES: Record<LimitRefusalKind, string> = {
  STREAM_LIMIT: 'Too many streams at once: stop playing on another screen and try again.',
  DEVICE_LIMIT: 'Too many devices are registered: remove one in your account and try again.',
  USER_BANNED: 'This account may not play content.',
  DEVICE_BANNED: 'This device may not play content.',
  LIMITS_UNAVAILABLE: 'Playback cannot be checked right now; try again in a moment.',
};

const KINDS = Object.keys(LIMIT_ERROR_CODES) as LimitRefusalKind[];

/** The codes in use: the defaults with the site's choices, checked. */
export function resolveLimitCodes(
  chosen: Partial<Record<LimitRefusalKind, string>> | undefined,
): Record<LimitRefusalKind, string> {
  const codes = { ...LIMIT_ERROR_CODES, ...chosen };
  for (const [kind, code] of Object.entries(codes)) {
    if (!KINDS.includes(kind as LimitRefusalKind)) {
      throw new SiteKitError(
        'INVALID_INPUT',
        `codes.${kind}: unknown kind; the kinds are ${KINDS.join(', ')}.`,
      );
    }
    if (typeof code !== 'string' || !/^\d{4}$/.test(code) || code === '0000') {
      throw new SiteKitError(
        'INVALID_INPUT',
        `codes.${kind}: must be 4 digits other than "0000" (both gateway answer formats must carry it), got ${JSON.stringify(code)}.`,
      );
    }
  }
  return codes;
}
