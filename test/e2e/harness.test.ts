import { describe, expect, test } from 'vitest';
import { e2eSkipped, SKIP_NOTICE } from './support/chromium.ts';
import { isBlankFrame, meanDifference, referenceFrame } from './support/frames.ts';
import { expectDecryptedPlayback, firstAppError } from './support/playback.ts';
import { decodePng } from './support/png.ts';
import { useSession } from './support/use-session.ts';
import { SAMPLE } from './support/site.ts';

// The harness on its own, without the license flow: Shaka's built-in ClearKey configuration plays
// the sample. When these pass and a flow test fails, the product is at fault, not the harness.

const skip = e2eSkipped();
if (skip) console.warn(SKIP_NOTICE);

describe.skipIf(skip)('test harness (Shaka ClearKey configuration, no license server)', () => {
  const session = useSession();

  test('the sample plays decrypted with its key and the frame at 2 s matches the clear source', async () => {
    await session.start({
      id: 'clear-keys',
      manifestUrl: session.stack.manifestUrl,
      auth: { mode: 'clear-keys', clearKeys: { [SAMPLE.kid]: SAMPLE.key } },
    });
    const proof = await expectDecryptedPlayback(session, 'clear-keys');
    expect(proof.status.load).toBe('resolved');
  });

  test('with a wrong key nothing plays: Shaka reports a decode error and the picture is no source frame', async () => {
    const wrongKey = SAMPLE.key.replace(/^./, (c) => (c === '0' ? '1' : '0'));
    await session.start({
      id: 'wrong-key',
      manifestUrl: session.stack.manifestUrl,
      auth: { mode: 'clear-keys', clearKeys: { [SAMPLE.kid]: wrongKey } },
    });
    const { error, status } = await firstAppError(session, 'wrong-key');
    expect(error.shakaCode).toBe(3016);
    expect(error.auth).toBeNull();
    expect(status.currentTime).toBeLessThan(2);
    const image = decodePng(await session.page.locator('#wrong-key').screenshot());
    expect(isBlankFrame(image) || meanDifference(image, referenceFrame(2)) > 5).toBe(true);
  });
});
