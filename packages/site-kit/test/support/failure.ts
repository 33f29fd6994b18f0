import { SiteKitError } from '../../src/index.ts';

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
