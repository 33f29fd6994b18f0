// Another user on the same page (a sign-out, a profile switch): `clearTokens()` drops the tokens the
// handle holds and the fetches under way, so the next license request goes out with a token the
// site issued for the user signed in now, on every player.
import { delay, HttpResponse } from 'msw';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { ADAPTERS, drive, type Driven } from './adapter-drivers.ts';
import { requestLicense, server, useLicenseAuthHarness } from './harness.ts';

/** The site: a token for whoever its cookie says is signed in, `slow` ms late. */
function site() {
  const state = { user: 'alice', slow: 0 };
  const token = async () => {
    const user = state.user;
    if (state.slow) await delay(state.slow);
    return HttpResponse.text(`token-of-${user}`);
  };
  return { state, token };
}

describe('Shaka', () => {
  const h = useLicenseAuthHarness();

  test('the next user’s license request fetches a token again instead of reusing the last user’s', async () => {
    const { state, token } = site();
    const { player, handle } = h.setup({}, { token });
    await requestLicense(player);
    await requestLicense(player); // the cached token: no second fetch
    state.user = 'bob';
    handle.clearTokens();
    await requestLicense(player);
    expect(h.seen.license.map((l) => l.header)).toEqual([
      'token-of-alice',
      'token-of-alice',
      'token-of-bob',
    ]);
    expect(h.seen.token).toHaveLength(2);
  });

  test('a license request waiting for the last user’s token asks again, with no error reported', async () => {
    const { state, token } = site();
    state.slow = 50;
    const { player, handle } = h.setup({}, { token });
    const failed = h.record(handle, 'tokenFailed');
    const waiting = requestLicense(player);
    await expect.poll(() => h.seen.token.length).toBe(1);
    state.user = 'bob';
    handle.clearTokens();
    await waiting;
    expect(h.seen.license.map((l) => l.header)).toEqual(['token-of-bob']);
    expect(h.seen.token).toHaveLength(2);
    expect(failed).toEqual([]);
  });
});

describe.each(ADAPTERS)('the %s adapter', (adapter) => {
  beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
  const driven: Driven[] = [];
  afterEach(() => {
    server.resetHandlers();
    for (const d of driven.splice(0)) d.cleanup();
  });
  afterAll(() => server.close());

  test('clearTokens(): the next license request carries the new user’s token', async () => {
    const { state, token } = site();
    const d = drive(adapter, {}, { token });
    driven.push(d);
    await d.request();
    state.user = 'bob';
    d.handle.clearTokens();
    await d.request();
    expect(d.seen.license.map((l) => l.header)).toEqual(['token-of-alice', 'token-of-bob']);
  });
});
