import { afterAll, beforeAll, beforeEach } from 'vitest';
import { openSession, type E2eSession } from './session.ts';

/**
 * Opens one session for the test file and a fresh page before each test. When the session cannot
 * open (no Chromium), every test fails with that reason, rather than being reported as skipped.
 */
export function useSession(): E2eSession {
  let session: E2eSession | undefined;
  let failure: unknown;
  beforeAll(async () => {
    try {
      session = await openSession();
    } catch (error) {
      failure = error;
    }
  });
  afterAll(async () => {
    await session?.close();
  });
  beforeEach(async () => {
    if (session === undefined) throw failure;
    await session.fresh();
  });
  // Tests hold this from the start; the session behind it exists from beforeAll on.
  return new Proxy({} as E2eSession, {
    get: (_, name) => {
      if (session === undefined) throw new Error('The session is used before beforeAll ran.');
      return Reflect.get(session, name);
    },
  });
}

/** What the emulator's flow and the site's log record from now on, for one test's assertions. */
export function since(session: E2eSession) {
  const flowAt = session.stack.flow.length;
  const logAt = session.stack.site.log.length;
  return {
    flow: () => session.stack.flow.slice(flowAt),
    log: () => session.stack.site.log.slice(logAt),
  };
}
