// Shaka's DRM engine hands every failed license request to `drm.failureCallback`, and raises its
// `error` event only while one session is open: a failed session among several is dropped silently
// (drm_engine.js, sendLicenseRequest_). The handle's callback reports every failure and starts a
// dropped session again when the cause may pass. The DRM engine itself needs EME, which happy-dom
// lacks: these tests call the configured callback with the error the engine builds, around a real
// failure of the filters; the browser tests cover the engine.
import { describe, expect, test, vi } from 'vitest';
import { HttpResponse } from 'msw';
import { LicenseServiceError, TokenFetchError, type LicenseAuthEvents } from '../src/index.ts';
import {
  cors,
  makePlayer,
  rejection,
  requestLicense,
  shaka,
  TOKEN_URL,
  useLicenseAuthHarness,
  type Player,
} from './harness.ts';
import { attachLicenseAuth } from '../src/index.ts';

const h = useLicenseAuthHarness();
type Metadata = ReturnType<Player['getActiveSessionsMetadata']>[number];

const session = (sessionId: string, initData = [1, 2, 3]): Metadata => ({
  sessionId,
  sessionType: 'temporary',
  initData: new Uint8Array(initData),
  initDataType: 'cenc',
});

/** The error drm_engine.js builds for a failed license request of `metadata`'s session. */
function licenseRequestFailed(networkError: unknown, metadata: Metadata) {
  const { Severity, Category, Code } = shaka.util.Error;
  return new shaka.util.Error(
    Severity.CRITICAL,
    Category.DRM,
    Code.LICENSE_REQUEST_FAILED,
    networkError,
    metadata,
  );
}

/** A player with `open` sessions, whose retryLicensing() is recorded. */
function withSessions(player: Player, open: Metadata[]) {
  const retried = vi.fn(async () => true);
  player.getActiveSessionsMetadata = () => open;
  player.retryLicensing = retried;
  return retried;
}

const fail = (player: Player, error: unknown) =>
  player.getConfiguration().drm.failureCallback(error as never);

describe('drm.failureCallback', () => {
  test('one session: reported as licenseFailed, left to Shaka’s error event', async () => {
    const { player, handle } = h.setup(
      {},
      { license: () => HttpResponse.json({ errorCode: '7019', message: 'hash' }, cors()) },
    );
    const failed = h.record(handle, 'licenseFailed');
    const retried = withSessions(player, [session('s1')]);
    const error = licenseRequestFailed(await rejection(requestLicense(player)), session('s1'));
    fail(player, error);
    expect(failed).toHaveLength(1);
    const [event] = failed as [LicenseAuthEvents['licenseFailed']];
    expect(event.error).toBeInstanceOf(LicenseServiceError);
    expect((event.error as LicenseServiceError).errorCode).toBe('7019');
    expect([event.shakaError, event.sessionId, event.dropped, event.retrying]).toEqual([
      error,
      's1',
      false,
      false,
    ]);
    expect(error.handled).toBe(false);
    expect(retried).not.toHaveBeenCalled();
  });

  test('several sessions, refused by the service: the app learns why, nothing is retried', async () => {
    const { player, handle } = h.setup(
      {},
      { license: () => HttpResponse.json({ errorCode: '8711', message: 'over' }, cors()) },
    );
    const failed = h.record(handle, 'licenseFailed');
    const retried = withSessions(player, [session('s1'), session('s2', [4])]);
    const error = licenseRequestFailed(await rejection(requestLicense(player)), session('s2', [4]));
    fail(player, error);
    expect(failed[0]).toMatchObject({ sessionId: 's2', dropped: true, retrying: false });
    expect((failed[0]?.error as LicenseServiceError).message).toContain('playback period is over');
    expect(error.handled).toBe(false);
    expect(retried).not.toHaveBeenCalled();
  });

  test('several sessions, the site down: the session is started again once with retryLicensing()', async () => {
    const { player, handle } = h.setup(
      { retry: { maxAttempts: 1, windowMs: 0, renewalWindowMs: 0 } },
      { token: () => HttpResponse.text('down', { status: 503 }) },
    );
    const failed = h.record(handle, 'licenseFailed');
    const retried = withSessions(player, [session('s1'), session('s2', [4])]);
    const first = licenseRequestFailed(await rejection(requestLicense(player)), session('s2', [4]));
    fail(player, first);
    expect(failed[0]?.error).toBeInstanceOf(TokenFetchError);
    expect(failed[0]).toMatchObject({ dropped: true, retrying: true });
    expect(first.handled).toBe(true); // Shaka keeps the session for retryLicensing()
    expect(retried).toHaveBeenCalledWith(session('s2', [4]));
    // The new session (same init data) fails again: sessionRetries (1) is used up.
    const second = licenseRequestFailed(
      await rejection(requestLicense(player)),
      session('s3', [4]),
    );
    fail(player, second);
    expect(failed[1]).toMatchObject({ sessionId: 's3', dropped: true, retrying: false });
    expect(second.handled).toBe(false);
    expect(retried).toHaveBeenCalledTimes(1);
  });

  test('several sessions, the network failing after Shaka’s own attempts: retried too', async () => {
    const { player, handle } = h.setup({}, { license: () => HttpResponse.error() });
    const failed = h.record(handle, 'licenseFailed');
    const retried = withSessions(player, [session('s1'), session('s2', [4])]);
    fail(player, licenseRequestFailed(await rejection(requestLicense(player)), session('s1')));
    expect(failed[0]).toMatchObject({ error: null, retrying: true });
    expect(retried).toHaveBeenCalledTimes(1);
  });

  test('sessionRetries: 0 turns the retry off', async () => {
    const { player, handle } = h.setup(
      { sessionRetries: 0 },
      { license: () => HttpResponse.error() },
    );
    const failed = h.record(handle, 'licenseFailed');
    const retried = withSessions(player, [session('s1'), session('s2', [4])]);
    fail(player, licenseRequestFailed(await rejection(requestLicense(player)), session('s1')));
    expect(failed[0]).toMatchObject({ dropped: true, retrying: false });
    expect(retried).not.toHaveBeenCalled();
  });

  test('the app’s own callback, configured before attaching, runs first; detach() puts it back', async () => {
    const player = makePlayer();
    h.players.push(player);
    const seenByApp: unknown[] = [];
    const appCallback = (error: { handled: boolean }) => {
      seenByApp.push(error);
      error.handled = true;
    };
    player.configure({ drm: { failureCallback: appCallback } });
    const handle = attachLicenseAuth(player, { contentId: 'movie-1', tokenUrl: TOKEN_URL });
    expect(player.getConfiguration().drm.failureCallback).not.toBe(appCallback);
    const failed = h.record(handle, 'licenseFailed');
    const retried = withSessions(player, [session('s1'), session('s2', [4])]);
    const error = licenseRequestFailed(new Error('x'), session('s1'));
    fail(player, error);
    expect(seenByApp).toEqual([error]);
    // Handled by the app: Shaka raises nothing, and the handle does not retry on its behalf.
    expect(failed[0]).toMatchObject({ dropped: true, retrying: false });
    expect(retried).not.toHaveBeenCalled();
    handle.detach();
    expect(player.getConfiguration().drm.failureCallback).toBe(appCallback);
  });
});
