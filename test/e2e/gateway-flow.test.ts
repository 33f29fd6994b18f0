import { describe, expect, test } from 'vitest';
import { e2eSkipped, SKIP_NOTICE } from './support/chromium.ts';
import { expectDecryptedPlayback, firstAppError } from './support/playback.ts';
import { since, useSession } from './support/use-session.ts';
import { flowSetup } from './support/setups.ts';
import {
  DENIED,
  DOWN_SITE,
  EXTERNAL_KEY_CID,
  SAMPLE,
  SIGNED_IN_USER,
  SITE,
  XML_SITE,
} from './support/site.ts';

// Gateway mode end to end: the player gets custom data from the site, the emulator calls the site's
// gateway page back (encrypted JSON or XML) and issues the license the site decided on.

const skip = e2eSkipped();
if (skip) console.warn(SKIP_NOTICE);

describe.skipIf(skip)('gateway flow in a real browser', () => {
  const session = useSession();

  test('gateway JSON: the emulator calls the site back and the video plays decrypted', async () => {
    const mark = since(session);
    await session.start(flowSetup(session.stack, { id: 'json', customDataPath: '/custom-data' }));
    await expectDecryptedPlayback(session, 'json');

    expect(mark.flow()).toContainEqual(
      expect.objectContaining({
        type: 'callback-sent',
        siteId: SITE.siteId,
        format: 'json',
        userId: SIGNED_IN_USER,
        cid: SAMPLE.cid,
        drmType: 'Widevine',
      }),
    );
    expect(mark.flow()).toContainEqual(
      expect.objectContaining({ type: 'license-issued', mode: 'gateway', kids: [SAMPLE.kid] }),
    );
    expect(mark.log()).toContainEqual(
      expect.objectContaining({
        source: 'gateway',
        path: '/gateway/json',
        event: expect.objectContaining({ type: 'decision', allow: true, error_code: '0000' }),
      }),
    );
  });

  test('gateway XML: the key comes from the PACKINFO of the answer, for a cid the emulator has no key for', async () => {
    const mark = since(session);
    await session.start(
      flowSetup(session.stack, {
        id: 'xml',
        customDataPath: '/custom-data-xml',
        contentId: EXTERNAL_KEY_CID,
      }),
    );
    await expectDecryptedPlayback(session, 'xml');

    expect(mark.flow()).toContainEqual(
      expect.objectContaining({ type: 'callback-sent', siteId: XML_SITE.siteId, format: 'xml' }),
    );
    expect(mark.flow()).toContainEqual(
      expect.objectContaining({
        type: 'license-issued',
        mode: 'gateway',
        siteId: XML_SITE.siteId,
        cid: EXTERNAL_KEY_CID,
        kids: [SAMPLE.kid],
      }),
    );
    expect(Object.keys(session.stack.emulator.config.keys)).not.toContain(EXTERNAL_KEY_CID);
  });

  test("the gateway denies: the app gets LicenseServiceError 8002 carrying the site's own code, with no token storm", async () => {
    const mark = since(session);
    await session.start(
      flowSetup(session.stack, { id: 'denied', customDataPath: '/custom-data-lapsed' }),
    );
    const { error, status } = await firstAppError(session, 'denied');
    expect(error.auth).toMatchObject({
      name: 'LicenseServiceError',
      errorCode: '8002',
      status: 200,
      siteErrorCode: DENIED.code,
      siteErrorMessage: DENIED.message,
    });
    // The service's message is the site's answer as JSON text.
    expect(JSON.parse(error.auth?.serviceMessage ?? '')).toEqual({
      ERROR: DENIED.code,
      MESSAGE: DENIED.message,
    });
    expect(status.currentTime).toBe(0);
    // A refusal no token can fix: one custom data fetch, one license request, nothing re-sent.
    expect(
      mark.log().filter((l) => l.source === 'custom-data' && l.event.type === 'decision').length,
    ).toBe(1);
    expect(status.licenses).toHaveLength(1);
    expect(mark.flow()).toContainEqual(
      expect.objectContaining({ type: 'callback-answered', ok: false, siteErrorCode: DENIED.code }),
    );
    expect(mark.log()).toContainEqual(
      expect.objectContaining({
        source: 'gateway',
        event: expect.objectContaining({ user_id: DENIED.userId, error_code: DENIED.code }),
      }),
    );
  });

  test('the gateway is down: the app gets LicenseServiceError 8701', async () => {
    await session.start(
      flowSetup(session.stack, { id: 'down', customDataPath: '/custom-data-down' }),
    );
    const { error, status } = await firstAppError(session, 'down');
    expect(error.auth).toMatchObject({
      name: 'LicenseServiceError',
      errorCode: '8701',
      status: 200,
    });
    // Our explanation rides along in the refusal's `detail`; a real service's client ignores it.
    expect(String(error.auth?.detail)).toContain(`"${DOWN_SITE.siteId}"`);
    expect(status.currentTime).toBe(0);
  });
});
