import { SiteKitError, TokenError, type TokenErrorCode } from '../../src/index.ts';

/** The SiteKitError `fn` throws; anything else, or nothing thrown, fails the test. */
export function failure(fn: () => unknown): SiteKitError {
  try {
    fn();
  } catch (error) {
    if (error instanceof SiteKitError) return error;
    throw error;
  }
  throw new Error('expected a SiteKitError');
}

/** The TokenError code `fn` throws, or 'none'; any other error fails the test. */
export function codeOf(fn: () => unknown): TokenErrorCode | 'none' {
  try {
    fn();
    return 'none';
  } catch (error) {
    if (error instanceof TokenError) return error.code;
    throw error;
  }
}
