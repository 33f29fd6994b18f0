import { describe, expect, test } from 'vitest';
import { HttpResponse } from 'msw';
import { findLicenseAuthError, LicenseServiceError, TokenFetchError } from '../src/index.ts';
import {
  cors,
  rejection,
  requestLicense,
  shaka,
  TOKEN_URL,
  useLicenseAuthHarness,
} from './harness.ts';

const h = useLicenseAuthHarness();
const { setup, record, filterError } = h;

describe('token fetch failures become TokenFetchError', () => {
  test('a refusal carries URL, status and the site reason, and says what to fix', async () => {
    const { player, handle } = setup(
      {},
      { token: () => HttpResponse.json({ message: 'not entitled to movie-1' }, { status: 403 }) },
    );
    const failed = record(handle, 'tokenFailed');
    const cause = filterError(await rejection(requestLicense(player))) as TokenFetchError;
    expect(cause).toBeInstanceOf(TokenFetchError);
    expect(cause.code).toBe('TOKEN_FETCH_FAILED');
    expect([cause.url, cause.status, cause.reason]).toEqual([
      TOKEN_URL,
      403,
      'not entitled to movie-1',
    ]);
    expect(cause.message).toContain('must be signed in');
    expect(h.seen.license).toEqual([]);
    expect(failed).toHaveLength(1);
    expect(failed[0]?.error).toBe(cause);
    expect(h.seen.token).toHaveLength(1); // 403 is not retried
  });

  test('a plain-text reason is kept, shortened', async () => {
    const { player } = setup(
      {},
      { token: () => HttpResponse.text('x'.repeat(500), { status: 404 }) },
    );
    const cause = filterError(await rejection(requestLicense(player))) as TokenFetchError;
    expect(cause.status).toBe(404);
    expect(cause.reason).toHaveLength(200);
    expect(cause.message).toContain("check the URL and the site's logs");
  });

  test('a 503 is retried by the retry policy, then succeeds', async () => {
    const { player } = setup(
      { retry: { baseDelayMs: 1 } },
      {
        token: () =>
          h.seen.token.length === 1
            ? HttpResponse.text('later', { status: 503 })
            : HttpResponse.text('good-token'),
      },
    );
    await requestLicense(player);
    expect(h.seen.token).toHaveLength(2);
    expect(h.seen.license[0]?.header).toBe('good-token');
  });

  test('retries stop at retry.maxAttempts without a window (windowMs 0)', async () => {
    const { player } = setup(
      { retry: { baseDelayMs: 1, maxAttempts: 3, windowMs: 0 } },
      { token: () => HttpResponse.text('down', { status: 500 }) },
    );
    const cause = filterError(await rejection(requestLicense(player))) as TokenFetchError;
    expect(cause.status).toBe(500);
    expect(h.seen.token).toHaveLength(3);
  });

  test('an empty answer is an error, not an empty header', async () => {
    const { player } = setup({}, { token: () => HttpResponse.text('  ') });
    const cause = filterError(await rejection(requestLicense(player))) as TokenFetchError;
    expect(cause.reason).toBe('an empty token');
    expect(h.seen.license).toEqual([]);
  });

  test('an error thrown by getToken() is wrapped with its message', async () => {
    const { player } = setup({
      tokenUrl: undefined,
      getToken: () => Promise.reject(new Error('no session')),
    });
    const cause = filterError(await rejection(requestLicense(player))) as TokenFetchError;
    expect(cause).toBeInstanceOf(TokenFetchError);
    expect([cause.url, cause.reason]).toEqual(['getToken()', 'no session']);
  });
});

describe('license service error bodies become LicenseServiceError', () => {
  const body = {
    error_code: 'TOKEN_EXPIRED',
    message: 'token is 75 s old',
    detail: 'timestamp 2026-01-01T00:00:00Z',
  };

  test('an error_code body with HTTP 200 (a proxy of the service) is a refusal too', async () => {
    const { player, handle } = setup({}, { license: () => HttpResponse.json(body, cors()) });
    const answered = record(handle, 'licenseAnswered');
    const cause = filterError(await rejection(requestLicense(player))) as LicenseServiceError;
    expect(cause).toBeInstanceOf(LicenseServiceError);
    expect([cause.errorCode, cause.serviceMessage, cause.detail, cause.status]).toEqual([
      'TOKEN_EXPIRED',
      'token is 75 s old',
      'timestamp 2026-01-01T00:00:00Z',
      200,
    ]);
    expect(cause.message).toContain("check the site's settings");
    expect(answered[0]?.error).toBe(cause);
  });

  test('sent with a 4xx: the next attempt is not sent, the error surfaces through the filter', async () => {
    const { player, handle } = setup(
      {},
      {
        license: () =>
          HttpResponse.json({ ...body, error_code: 'INVALID_DRM_TYPE' }, cors({ status: 400 })),
      },
    );
    const answered = record(handle, 'licenseAnswered');
    const cause = filterError(await rejection(requestLicense(player))) as LicenseServiceError;
    expect(cause.errorCode).toBe('INVALID_DRM_TYPE');
    expect(cause.status).toBe(400);
    expect(cause.message).toContain("check the site's settings");
    expect(h.seen.license).toHaveLength(1);
    // One answer, one event: the refused attempt that was never sent reports nothing.
    expect(answered).toHaveLength(1);
    expect(answered[0]?.status).toBe(400);
  });

  test('a 4xx on the last attempt still surfaces as LicenseServiceError', async () => {
    // Shaka runs the request filters once more before it notices the attempts are used up.
    const { player } = setup({}, { license: () => HttpResponse.json(body, cors({ status: 400 })) });
    const cause = filterError(await rejection(requestLicense(player, { maxAttempts: 1 })));
    expect((cause as LicenseServiceError).errorCode).toBe('TOKEN_EXPIRED');
  });

  test('a 403 with a service body on the only attempt surfaces as LicenseServiceError', async () => {
    const { player } = setup({}, { license: () => HttpResponse.json(body, cors({ status: 403 })) });
    const cause = filterError(await rejection(requestLicense(player, { maxAttempts: 1 })));
    expect((cause as LicenseServiceError).status).toBe(403);
    expect(h.seen.token).toHaveLength(1); // no fresh token fetched for an attempt that will not be made
  });

  test('a license answer that is not an error body is passed on', async () => {
    const clearKeyLicense = { keys: [{ kty: 'oct', k: 'AAAA', kid: 'BBBB' }], type: 'temporary' };
    const { player } = setup({}, { license: () => HttpResponse.json(clearKeyLicense, cors()) });
    const response = await requestLicense(player, { keySystem: 'org.w3.clearkey' });
    expect(JSON.parse(new TextDecoder().decode(response.data as ArrayBuffer))).toEqual(
      clearKeyLicense,
    );
  });
});

describe('findLicenseAuthError', () => {
  test('finds the original error inside the errors Shaka wraps it in', async () => {
    const { player } = setup({}, { token: () => HttpResponse.text('no', { status: 401 }) });
    const filterFailure = await rejection(requestLicense(player));
    // What the DRM engine dispatches in the player's `error` event: LICENSE_REQUEST_FAILED around it.
    const { Severity, Category, Code } = shaka.util.Error;
    const dispatched = new shaka.util.Error(
      Severity.CRITICAL,
      Category.DRM,
      Code.LICENSE_REQUEST_FAILED,
      filterFailure,
    );
    const found = findLicenseAuthError(dispatched);
    expect(found).toBeInstanceOf(TokenFetchError);
    expect((found as TokenFetchError).status).toBe(401);
  });

  test('is null for errors that are not about license auth', () => {
    const { Severity, Category, Code } = shaka.util.Error;
    expect(
      findLicenseAuthError(
        new shaka.util.Error(Severity.CRITICAL, Category.MEDIA, Code.VIDEO_ERROR),
      ),
    ).toBeNull();
    expect(findLicenseAuthError(new Error('x'))).toBeNull();
    expect(findLicenseAuthError(null)).toBeNull();
  });
});
