import type { Catalogue } from './catalogue.ts';

// Mutants of the player engine's claims: retry and its bounds, the token cache, reading the
// service's refusals and the site's token answer, the key systems. Run it last: the adapters and
// the engine change often; a stale entry is reported, never guessed at.

const S = 'packages/player/src/engine';
// The player's claims are spread over its adapter suites (a retry is seen through Shaka, hls.js, ...):
// each mutant is judged by the whole player project, as `--all-tests` would.
const project: string[] = [];

export const player: Catalogue = {
  project: 'player',
  mutants: [
    {
      id: 'retry-attempts-default',
      file: `${S}/retry.ts`,
      original: '  maxAttempts: 2,',
      mutated: '  maxAttempts: 3,',
      why: 'the documented default is two attempts: a third keeps a refused user waiting',
      tests: project,
    },
    {
      id: 'retry-attempts-boundary',
      file: `${S}/retry.ts`,
      original: 'failures < retry.maxAttempts &&',
      mutated: 'failures <= retry.maxAttempts &&',
      why: 'maxAttempts counts attempts, not retries',
      tests: project,
    },
    {
      id: 'retry-any-status',
      file: `${S}/retry.ts`,
      original: '(status === undefined || retry.retryOnStatus.includes(status))',
      mutated: '(status === undefined || status >= 400)',
      why: 'a 401/403 (the site refused) is final: retrying it cannot help',
      tests: project,
    },
    {
      id: 'retry-no-answer-final',
      file: `${S}/retry.ts`,
      original: '(status === undefined || retry.retryOnStatus.includes(status))',
      mutated: '(status !== undefined && retry.retryOnStatus.includes(status))',
      why: 'no answer at all (network) is worth one more try',
      tests: project,
    },
    {
      id: 'retry-backoff-cap',
      file: `${S}/retry.ts`,
      original: 'retry.backoffFactor ** (failures - 1), retry.maxDelayMs)',
      mutated: 'retry.backoffFactor ** (failures - 1), retry.maxDelayMs * 10)',
      why: 'the wait between attempts never exceeds maxDelayMs',
      tests: project,
    },
    {
      id: 'retry-429-dropped',
      file: `${S}/retry.ts`,
      original: 'retryOnStatus: [408, 429, 500, 502, 503, 504],',
      mutated: 'retryOnStatus: [408, 500, 502, 503, 504],',
      why: 'a busy service (429) is retried after a wait',
      tests: project,
    },
    {
      id: 'token-cache-reuse-boundary',
      file: `${S}/token-cache.ts`,
      original: 'options.now() - entry.fetchedAt < reuseForMs',
      mutated: 'options.now() - entry.fetchedAt <= reuseForMs + 1000',
      why: 'a cached token is not reused once too little of its validity is left',
      tests: project,
    },
    {
      id: 'token-cache-refused-kept',
      file: `${S}/token-cache.ts`,
      original: 'if (entries.get(key)?.value === value) entries.delete(key);',
      mutated: '',
      why: 'a token the service refused must not be handed out again',
      tests: project,
    },
    {
      id: 'token-cache-margin-sign',
      file: `${S}/token-cache.ts`,
      original: 'const reuseForMs = options.lifetimeMs - options.minRemainingMs;',
      mutated: 'const reuseForMs = options.lifetimeMs + options.minRemainingMs;',
      why: 'a token is reused only while enough of its lifetime remains for the license request',
      tests: project,
    },
    {
      id: 'service-error-not-json',
      file: `${S}/service-error.ts`,
      original: "if (!text.startsWith('{')) return null;",
      mutated: '',
      why: 'a license (binary) that happens to parse must not be read as a refusal',
      tests: project,
    },
    {
      id: 'service-success-code',
      file: `${S}/service-error.ts`,
      original: "String(code) === '0000')",
      mutated: "String(code) === '0001')",
      why: 'code 0000 is success, never a refusal',
      tests: project,
    },
    {
      id: 'builder-error-shape',
      file: `${S}/service-error.ts`,
      original:
        "!('error_message' in body) || 'errorCode' in body || 'message' in body) return null;",
      mutated: "!('error_message' in body)) return null;",
      why: "the service's own refusal is not a token builder's error",
      tests: project,
    },
    {
      id: 'site-token-2xx',
      file: `${S}/site-client.ts`,
      original: 'if (res.status >= 200 && res.status < 300) {',
      mutated: 'if (res.status >= 200 && res.status < 400) {',
      why: 'a redirect answer from the token endpoint is not a token',
      tests: project,
    },
    {
      id: 'site-token-html',
      file: `${S}/site-client.ts`,
      original: "if (text.startsWith('<')) {",
      mutated: 'if (false) {',
      why: 'an HTML page (a login page) answered with 200 is not a token: say so',
      tests: project,
    },
    {
      id: 'site-token-untrimmed',
      file: `${S}/site-client.ts`,
      original: "if (typeof value === 'string' && value.trim()) return value.trim();",
      mutated: "if (typeof value === 'string' && value.trim()) return value;",
      why: 'a token answered with a trailing newline is still the token',
      tests: project,
    },
    {
      id: 'license-empty-accepted',
      file: `${S}/license-answer.ts`,
      original: 'if (!license?.length) {',
      mutated: 'if (!license) {',
      why: 'an empty license is a failure the player reports, not a license',
      tests: project,
      equivalent:
        'every reading of the (trimmed, non-empty) text gives at least one byte or null, never an empty array',
    },
    // --- proxy mode (licenseProxy) and the adapters' own license URLs
    {
      id: 'proxy-cookies-dropped',
      file: `${S}/license-request.ts`,
      original: "credentials: proxied ? 'include' : init.credentials,",
      mutated: 'credentials: init.credentials,',
      why: "the proxy decides from the page's cookies: without them every user is refused",
      tests: project,
    },
    {
      id: 'proxy-site-refusal-resent',
      file: `${S}/engine.ts`,
      original: '(((status === 401 || status === 403) && !opts.licenseProxy) ||',
      mutated: '((status === 401 || status === 403) ||',
      why: "in proxy mode a 401/403 is the site's decision: sending it again cannot change it",
      tests: project,
    },
    {
      id: 'proxy-drm-case-kept',
      file: `${S}/proxy.ts`,
      original: "url.searchParams.set('drmType', drmType.toLowerCase());",
      mutated: "url.searchParams.set('drmType', drmType);",
      why: 'the proxy reads drmType in lower case, as its URLs are documented',
      tests: project,
    },
    {
      id: 'proxy-site-error-as-license-failure',
      file: `${S}/proxy.ts`,
      original: 'return /^SITE_/.test(code as string)',
      mutated: 'return /^SITE_REFUSED$/.test(code as string)',
      why: "every SITE_* failure is the site's, read as a token endpoint's failure would be",
      tests: project,
    },
    {
      id: 'proxy-answer-code-unchecked',
      file: `${S}/proxy.ts`,
      original: "if (!/^[A-Z_]+$/.test(code as string) || typeof message !== 'string') return;",
      mutated: "if (typeof message !== 'string') return;",
      why: "only the proxy's own {code,message} is its failure; another JSON body is read as the service's",
      tests: project,
    },
    {
      id: 'videojs-source-url-ignored',
      file: 'packages/player/src/videojs/attach.ts',
      original: 'licenseUrlOf(keySystemOf(player.currentSource?.(), keySystem)) ??',
      mutated: '',
      why: "a source's own license URL wins over the plugin-wide one",
      tests: project,
    },
    {
      id: 'fairplay-prefix',
      file: `${S}/key-systems.ts`,
      original: "keySystem.startsWith('com.apple.fps');",
      mutated: "keySystem === 'com.apple.fps';",
      why: 'FairPlay is also named com.apple.fps.1_0 / 2_0 / 3_0',
      tests: project,
    },
  ],
};
