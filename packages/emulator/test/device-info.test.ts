import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { deviceInfo } from '../src/license-answer.ts';

const expectedId = (userAgent: string) =>
  createHash('sha256').update(userAgent).digest('hex').slice(0, 32);

describe('deviceInfo', () => {
  it("names each browser by its User-Agent's hash, however many browsers come and come again", async () => {
    // More user agents than the emulator keeps hashes of, each seen twice, in two passes.
    const agents = Array.from({ length: 600 }, (_, i) => `Mozilla/5.0 Chrome/${i}.0`);
    for (const agent of [...agents, ...agents.toReversed()]) {
      expect((await deviceInfo(agent, 'session')).device_id).toBe(expectedId(agent));
    }
  });

  it('has no device ID without a User-Agent, and tells Chrome CDMs apart', async () => {
    expect(await deviceInfo(null, 'req-1')).toEqual({
      device_id: '',
      device_model: 'ClearKey',
      os_version: '',
      session_id: 'req-1',
      is_chrome_cdm: false,
    });
    expect((await deviceInfo('Mozilla/5.0 Chromium/120.0', 's', 'Widevine')).is_chrome_cdm).toBe(
      true,
    );
  });
});
