import { describe, expect, test } from 'vitest';
import { parseArguments } from '../src/main/contract-schemas.ts';

const request = {
  mode: 'token',
  player: 'hls',
  userId: 'alice',
  cid: 'sample',
  policy: {
    limit: true,
    timeRule: 'expire_date',
    expireDate: '2026-13-01 10:00',
    persistent: false,
    hdcp: null,
    securityLevel: null,
    externalKey: false,
  },
};

describe('refusals name the field as the page shows it', () => {
  test('a badly formatted date says "Expire date", without an internal prefix', () => {
    const parsed = parseArguments('preparePlay', [request]);
    expect(parsed.ok).toBe(false);
    const message = parsed.ok ? '' : parsed.error.message;
    expect(message).toMatch(/^Expire date: must have the format yyyy-mm-ddThh:mm:ssZ/);
    expect(message).not.toMatch(/preparePlay|arguments/);
  });

  test('every broken field is named at once', () => {
    const parsed = parseArguments('preparePlay', [{ ...request, userId: '', mode: 'x' }]);
    const message = parsed.ok ? '' : parsed.error.message;
    expect(message).toContain('Mode: must be one of');
    expect(message).toContain('User: must not be empty');
  });

  test('a player outside the picker is refused naming "Player" and the four players', () => {
    const valid = { ...request, policy: { ...request.policy, expireDate: '2030-01-01T00:00:00Z' } };
    expect(parseArguments('preparePlay', [valid]).ok).toBe(true);
    const parsed = parseArguments('preparePlay', [{ ...valid, player: 'flash' }]);
    expect(parsed.ok ? '' : parsed.error.message).toBe(
      'Player: must be one of shaka, hls, dash, videojs.',
    );
    const missing = parseArguments('preparePlay', [{ ...valid, player: undefined }]);
    expect(missing.ok ? '' : missing.error.message).toBe(
      'Player: must be one of shaka, hls, dash, videojs.',
    );
  });

  test('a call made by hand with the wrong shape names the contract path', () => {
    const parsed = parseArguments('preparePlay', []);
    expect(parsed.ok ? '' : parsed.error.message).toMatch(/^preparePlay: arguments/);
  });
});
