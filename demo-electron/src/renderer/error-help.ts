import { findLicenseAuthError, LicenseServiceError, TokenFetchError } from '@multidrm/player';
import type { DemoError } from '../shared/contract.ts';

/**
 * What to change on this page for each refusal the flow can end in: the license service's codes
 * (digits, as the service and the emulator answer), then the player's and the page's own.
 */
const FIXES: Readonly<Record<string, string>> = {
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
};

export function fixFor(code: string, fallback: string): string {
  return FIXES[code] ?? fallback;
}

/** The code, message and fix of whatever ended a play attempt. */
export function describeFailure(error: unknown): DemoError {
  const auth = findLicenseAuthError(error);
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
