import { LicenseAuthError, LicenseServiceError, TokenFetchError } from '@multidrm/player';
// The player's own reading of the proxy's answers, so the panel is tested on what it really gets.
import { proxyFailure } from '../../packages/player/src/engine/proxy.ts';
import { describe, expect, test } from 'vitest';
import { describeFailure } from '../src/renderer/error-help.ts';
import type { PlayerName } from '../src/shared/contract.ts';

// The error panel reads each player's error as that player reports it: the refusal inside it when
// @multidrm/player put one there, the player's own code otherwise.

const refusal = new LicenseServiceError(
  {
    errorCode: '8002',
    serviceMessage: '{"ERROR":"4031","MESSAGE":"Not entitled"}',
    siteErrorCode: '4031',
    siteErrorMessage: 'Not entitled',
    detail: 'The site refused the license with its error code 4031.',
    status: 200,
    url: 'http://127.0.0.1:1/ri/licenseManager.do',
    keySystem: 'org.w3.clearkey',
  },
  'The license service refused.',
);

/** Where each player keeps the error a hook raised (the package README's table). */
const WRAPPED: Record<PlayerName, (error: unknown) => unknown> = {
  shaka: (error) => ({ code: 6007, category: 6, data: [{ code: 6001, data: [error] }] }),
  hls: (error) => ({ type: 'keySystemError', details: 'keySystemNoKeys', fatal: true, error }),
  dash: (error) => ({ type: 'error', error: { code: 111, message: 'refused', data: error } }),
  videojs: (error) => ({ code: 5, message: 'MEDIA_ERR_ENCRYPTED', originalError: error }),
};

describe('the error panel, for each player', () => {
  test.each(Object.keys(WRAPPED) as PlayerName[])(
    "%s: a refusal inside the player's error shows the service's code and the site's",
    (player) => {
      expect(describeFailure(WRAPPED[player](refusal), player)).toEqual({
        code: '8002',
        message: 'The site refused: code 4031, "Not entitled".',
        fix: expect.stringContaining("The site's gateway refused the user"),
        explanation: 'The site refused the license with its error code 4031.',
      });
    },
  );

  test.each(Object.keys(WRAPPED) as PlayerName[])(
    '%s: an error of the package other than a refusal shows its code and a fix',
    (player) => {
      const failed = new LicenseAuthError('LICENSE_REQUEST_FAILED', 'HTTP 503.');
      expect(describeFailure(WRAPPED[player](failed), player)).toEqual({
        code: 'LICENSE_REQUEST_FAILED',
        message: 'HTTP 503.',
        fix: expect.stringContaining('check that it runs'),
      });
    },
  );

  test.each([
    [
      'shaka',
      { code: 6007, category: 6, data: [{ code: 1001, data: ['http://x/l', 503] }] },
      'SHAKA_6007',
      'Shaka Player stopped with its error 6007 (category 6): a request was answered with HTTP 503.',
    ],
    [
      'hls',
      { type: 'networkError', details: 'manifestLoadError', fatal: true, error: new Error('404') },
      'HLS_manifestLoadError',
      'hls.js stopped with networkError manifestLoadError: 404.',
    ],
    [
      'dash',
      { type: 'error', error: { code: 25, message: 'manifest failed' } },
      'DASH_25',
      'dash.js stopped with its error 25: manifest failed',
    ],
    [
      'videojs',
      { code: 4, message: 'No compatible source was found.' },
      'VIDEOJS_4',
      'video.js stopped with media error 4: No compatible source was found.',
    ],
  ] as const)(
    "%s: the player's own error shows its code, prefixed with the player",
    (player, error, code, message) => {
      const described = describeFailure(error, player);
      expect(described).toMatchObject({ code, message });
      expect(described.fix).not.toBe('');
    },
  );

  const PROXY = 'http://127.0.0.1:1/license-proxy?drmType=widevine&cid=multidrm-sample';
  const fromProxy = (status: number, code: string, message: string) =>
    proxyFailure(JSON.stringify({ code, message }), status, PROXY, {
      drmType: 'Widevine',
      cid: 'multidrm-sample',
    });

  test.each(Object.keys(WRAPPED) as PlayerName[])(
    "%s: the site's proxy refusing (SITE_REFUSED) shows the proxy's code, the site's reason and a fix",
    (player) => {
      const error = fromProxy(403, 'SITE_REFUSED', 'guest-bob is not entitled to multidrm-sample.');
      expect(describeFailure(WRAPPED[player](error), player)).toEqual({
        code: 'SITE_REFUSED',
        message:
          "The site's license proxy answered HTTP 403: guest-bob is not entitled to multidrm-sample.",
        fix: expect.stringContaining('pick a member-… user'),
      });
    },
  );

  test.each([
    [502, 'UPSTREAM_UNREACHABLE', 'The license service could not be reached.', 'emulator runs'],
    [504, 'UPSTREAM_TIMEOUT', 'No answer in time.', 'in time'],
    [
      502,
      'UPSTREAM_ERROR',
      'The license service failed (HTTP 503); try again later.',
      'another fault',
    ],
    [503, 'SITE_TIMEOUT', 'The site could not decide in time.', 'Play again'],
    [500, 'SITE_ERROR', 'The site could not decide; try again later.', 'authorize'],
    [400, 'BAD_CID', 'cid: must be the content ID.', 'title'],
    [429, 'RATE_LIMITED', 'Too many requests; try again in 3 s.', 'wait a moment'],
  ])("the proxy's own %s %s is shown by its code, with a fix", (status, code, message, fix) => {
    const described = describeFailure(WRAPPED.hls(fromProxy(status, code, message)), 'hls');
    expect(described).toEqual({
      code,
      message: `The site's license proxy answered HTTP ${status}: ${message}`,
      fix: expect.stringContaining(fix),
    });
  });

  test("only the proxy's own codes are read as the proxy's: a token endpoint's reason or an unknown code are not", () => {
    const token = new TokenFetchError(
      'TOKEN_FETCH_FAILED',
      { url: 'http://127.0.0.1:1/token', status: 403, reason: 'NOT_ENTITLED: members only' },
      'The site refused the token.',
    );
    expect(describeFailure(token, 'shaka')).toMatchObject({
      code: 'TOKEN_FETCH_FAILED',
      message: 'HTTP 403: NOT_ENTITLED: members only',
    });
    const unknown = fromProxy(502, 'SOMETHING_NEW', 'Whatever it is.');
    expect(describeFailure(unknown, 'dash').code).toBe('LICENSE_REQUEST_FAILED');
  });

  test('an error no player shaped is shown as it is', () => {
    expect(describeFailure(new Error('boom'), 'dash')).toMatchObject({
      code: 'UNEXPECTED',
      message: 'boom',
    });
  });
});
