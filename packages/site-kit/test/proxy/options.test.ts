import { describe, expect, it } from 'vitest';
import { createLicenseProxy, SiteKitError, type LicenseProxyOptions } from '../../src/index.ts';

// The proxy's options are checked once, at creation; each mistake is INVALID_INPUT naming it.
const base: LicenseProxyOptions = {
  siteId: 'SITE',
  siteKey: 'lU5D8s3PWoLls3PWFWkClULlFWk5D8oC',
  accessKey: 'access',
  licenseUrl: 'https://license.example/ri/licenseManager.do',
  authorize: () => ({ allow: true }),
};

const failure = (options: Partial<LicenseProxyOptions>): { code: string; message: string } => {
  try {
    createLicenseProxy({ ...base, ...options } as LicenseProxyOptions);
  } catch (error) {
    if (error instanceof SiteKitError) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('created');
};

describe('createLicenseProxy refuses', () => {
  it.each([
    [
      'an http license URL to a remote host',
      { licenseUrl: 'http://license.example/ri/licenseManager.do' },
      'licenseUrl: must be https:// (http:// only to localhost, or with allowHttp: true), got http://license.example.',
    ],
    [
      'a license URL that is not a URL',
      { licenseUrl: '/ri/licenseManager.do' },
      'licenseUrl: must be an absolute https:// URL such as https://license.example/ri/licenseManager.do.',
    ],
    [
      'credentials in the license URL',
      { licenseUrl: 'https://u:p@license.example/' },
      'licenseUrl: must not hold a user name or password.',
    ],
    [
      'forwarding cookies',
      { forwardHeaders: ['Cookie'] },
      'forwardHeaders: "cookie" is never passed on to the license service (the user\'s credentials, the token header and connection headers stay with the proxy).',
    ],
    [
      'forwarding Authorization',
      { forwardHeaders: ['authorization'] },
      'forwardHeaders: "authorization" is never passed on to the license service (the user\'s credentials, the token header and connection headers stay with the proxy).',
    ],
    [
      'forwarding the token header itself',
      { header: 'X-Token', forwardHeaders: ['x-token'] },
      'forwardHeaders: "x-token" is never passed on to the license service (the user\'s credentials, the token header and connection headers stay with the proxy).',
    ],
    [
      'a wildcard origin',
      { cors: { origins: ['*'] } },
      'cors.origins.0: must be an origin: scheme://host[:port], no path, no trailing slash, no *',
    ],
    [
      'a zero deadline',
      { timeouts: { upstreamMs: 0 } },
      'timeouts.upstreamMs: must be more than 0',
    ],
    [
      'no authorize',
      { authorize: undefined },
      'authorize: must be a function (request, { drmType, cid }) => decision.',
    ],
  ])('%s', (_name, options, message) => {
    expect(failure(options as Partial<LicenseProxyOptions>)).toEqual({
      code: 'INVALID_INPUT',
      message,
    });
  });

  it('a site key of the wrong length, as every issuer does', () => {
    expect(failure({ siteKey: 'short' }).code).toBe('INVALID_SITE_KEY');
  });
});

describe('createLicenseProxy accepts', () => {
  it.each([
    ['http to localhost', { licenseUrl: 'http://localhost:8080/ri/licenseManager.do' }],
    ['http to 127.0.0.1', { licenseUrl: 'http://127.0.0.1:8080/ri/licenseManager.do' }],
    ['http anywhere with allowHttp', { licenseUrl: 'http://emulator:8080/', allowHttp: true }],
  ])('%s', (_name, options) => {
    expect(typeof createLicenseProxy({ ...base, ...options })).toBe('function');
  });
});
