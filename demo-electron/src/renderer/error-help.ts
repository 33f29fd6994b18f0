import { findLicenseAuthError, LicenseServiceError, TokenFetchError } from '@multidrm/player';
import type { DemoError } from '../shared/contract.ts';

/** What to change on this page for each refusal the flow can end in. */
const FIXES: Readonly<Record<string, string>> = {
  TOKEN_FETCH_FAILED:
    'The site refused this user for this title: pick a member-… user, or a free title.',
  TOKEN_TIMEOUT: 'The site did not answer in time: check that the demo stack is running.',
  GATEWAY_DENIED: "The site's gateway refused the user: pick a member-… user, or a free title.",
  LICENSE_EXPIRED: 'Set an expire_date in the future, or use a duration instead.',
  LICENSE_NOT_YET_VALID: 'Let the playback period start now.',
  NO_KEY_FOR_CID:
    'The license service holds no key for this title: turn "external key" on so the site sends it.',
  KID_NOT_LICENSED: 'The key the site sent does not match the content: check the external key.',
  TOKEN_EXPIRED: 'The token is older than 60 s: fetch a new one (press Play again).',
  HASH_MISMATCH: 'Site and license service use different access keys or hash readings.',
  DECRYPT_FAILED: 'Site and license service use different site keys.',
  UNKNOWN_SITE: 'The license service does not know this site ID: check the site ID setting.',
  INVALID_POLICY: 'Correct the policy as the message says.',
};

export function fixFor(code: string, fallback: string): string {
  return FIXES[code] ?? fallback;
}

/** The code, message and fix of whatever ended a play attempt. */
export function describeFailure(error: unknown): DemoError {
  const auth = findLicenseAuthError(error);
  if (auth instanceof LicenseServiceError) {
    return {
      code: auth.errorCode,
      message: auth.serviceMessage,
      fix: fixFor(auth.errorCode, 'Read the message: the license service says what it expects.'),
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
  const shaka = error as { code?: number; category?: number; message?: string } | null;
  if (typeof shaka?.code === 'number') {
    return {
      code: `PLAYER_${shaka.code}`,
      message: `The player stopped with Shaka error ${shaka.code} (category ${shaka.category ?? '?'}).`,
      fix: "Look the code up in Shaka Player's error list; the browser may lack ClearKey or the codec.",
    };
  }
  return {
    code: 'UNEXPECTED',
    message: error instanceof Error ? error.message : String(error),
    fix: 'Reload the page and try again.',
  };
}
