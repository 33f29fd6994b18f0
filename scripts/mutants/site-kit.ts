import type { Catalogue } from './catalogue.ts';

// Mutants of site-kit's claims: the AES core, the token (v1, v2), custom data, the gateway codec,
// the HTTP guards of its endpoints and the license proxy. New ones, beside the 99 of the first
// review (issue #30).

const S = 'packages/site-kit/src';
const T = 'packages/site-kit/test';
// Tests written for survivors of this catalogue: each mutant runs them too.
const mutants = `${T}/mutants/`;
const crypto = [`${T}/core/`, `${T}/fidelity/`, `${T}/gateway/padding-oracle.test.ts`];
const token = [`${T}/core/`, `${T}/v2/`, `${T}/fidelity/boundaries.test.ts`];
const customData = [`${T}/custom-data/`];
const gateway = [`${T}/gateway/`, `${T}/fidelity/gateway-codes.test.ts`];
const proxy = [`${T}/proxy/`];
const http = [
  `${T}/http/`,
  `${T}/gateway/`,
  `${T}/web/web-handlers.test.ts`,
  `${T}/custom-data/handler.test.ts`,
];

export const siteKit: Catalogue = {
  project: 'site-kit',
  mutants: [
    // --- AES-256-CBC core
    {
      id: 'pad-16-refused',
      file: `${S}/crypto/cbc-rules.ts`,
      original: 'Number(pad > BLOCK)',
      mutated: 'Number(pad >= BLOCK)',
      why: 'a message whose length is a multiple of 16 ends in a full block of padding 16: refusing it breaks every such token',
    },
    {
      id: 'pad-zero-accepted',
      file: `${S}/crypto/cbc-rules.ts`,
      original: 'Number(pad === 0)',
      mutated: 'Number(pad < 0)',
      why: 'a padding byte 0 is not PKCS#7: accepting it reads garbage under a wrong key as intact',
    },
    {
      id: 'pad-last-byte-unchecked',
      file: `${S}/crypto/cbc-rules.ts`,
      original: 'for (let i = 1; i <= BLOCK; i++)',
      mutated: 'for (let i = 1; i < BLOCK; i++)',
      why: 'a full padding block with its first byte changed would pass as intact',
    },
    {
      id: 'blocks-not-multiple',
      file: `${S}/crypto/cbc-rules.ts`,
      original: 'bytes.length === 0 || bytes.length % BLOCK !== 0',
      mutated: 'bytes.length === 0',
      why: 'a cut ciphertext must be refused with its length named, not decrypted',
    },
    {
      id: 'iv-byte-swapped',
      file: `${S}/crypto/cbc-context.ts`,
      original: '0x38, 0x39, 0x61, 0x62',
      mutated: '0x38, 0x39, 0x41, 0x62',
      why: 'the spec\'s fixed IV is "0123456789abcdef": an upper-case letter makes tokens the service cannot read',
    },
    {
      id: 'cbc-chain-state-wrong-block',
      file: `${S}/crypto/cbc-context.ts`,
      original: 'state.set(bytes.subarray(bytes.length - BLOCK));',
      mutated: 'state.set(bytes.subarray(0, BLOCK));',
      why: 'the kept cipher chains on the last ciphertext block: the wrong block breaks every second message with one key',
    },
    // --- token: hash, time, site, encodings
    {
      id: 'hash-field-order',
      file: `${S}/token/hash-input.ts`,
      original: 'f.cid + f.token',
      mutated: 'f.token + f.cid',
      why: 'the hash input order is fixed by the spec; another order makes hashes the service refuses',
    },
    {
      id: 'hash-compare-ignores-length',
      file: `${S}/token/hash-input.ts`,
      original: 'let diff = expected.length ^ received.length;',
      mutated: 'let diff = 0;',
      why: 'a hash of another length (cut, empty) would compare equal to the expected one',
    },
    {
      id: 'hash-compare-last-char',
      file: `${S}/token/hash-input.ts`,
      original: 'for (let i = 0; i < expected.length; i++) diff',
      mutated: 'for (let i = 0; i < expected.length - 1; i++) diff',
      why: 'a hash differing only in its last character would be accepted',
    },
    {
      id: 'expiry-boundary',
      file: `${S}/token/verify-rules.ts`,
      original: 'if (nowMs > expiresMs) {',
      mutated: 'if (nowMs >= expiresMs) {',
      why: 'a token is valid up to and including its last millisecond',
    },
    {
      id: 'skew-direction',
      file: `${S}/token/verify-rules.ts`,
      original: 'if (nowMs < issuedMs - settings.skewMs) {',
      mutated: 'if (nowMs < issuedMs + settings.skewMs) {',
      why: 'the clock skew allows a token slightly from the future; the other sign refuses fresh tokens',
    },
    {
      id: 'validity-unit',
      file: `${S}/token/verify-rules.ts`,
      original:
        "seconds(options.validitySeconds, DEFAULT_VALIDITY_SECONDS, 'validitySeconds') * 1000",
      mutated:
        "seconds(options.validitySeconds, DEFAULT_VALIDITY_SECONDS, 'validitySeconds') * 100",
      why: 'validity is in seconds: 600 s must not become 60 s',
    },
    {
      id: 'zero-seconds-refused',
      file: `${S}/token/verify-rules.ts`,
      original: '!Number.isFinite(value) || value < 0)',
      mutated: '!Number.isFinite(value) || value <= 0)',
      why: 'clockSkewSeconds: 0 (no skew) is a valid setting',
    },
    {
      id: 'site-check-skipped',
      file: `${S}/token/verify-rules.ts`,
      original: 'if (settings.siteId !== undefined && siteId !== settings.siteId) {',
      mutated: 'if (settings.siteId !== undefined && siteId === undefined) {',
      why: 'a token of another site must be refused as SITE_MISMATCH when the verifier names its site',
    },
    {
      id: 'v1-encoding-ignored',
      file: `${S}/token/verify-rules.ts`,
      original: "return version === 1 ? settings.hashEncoding : 'raw-digest';",
      mutated: "return version === 1 ? 'hex-text' : 'raw-digest';",
      why: "a v1 verifier configured for the 'raw-digest' reading must check that reading",
    },
    {
      id: 'damaged-padding-accepted',
      file: `${S}/token/verify-rules.ts`,
      original: 'if (!(opened.intact && parsed)) throw undecryptable(undefined);',
      mutated: 'if (!parsed) throw undecryptable(undefined);',
      why: 'token data that does not unpad must be DECRYPT_FAILED even if the bytes happen to parse',
    },
    {
      id: 'key-rotation-default',
      file: `${S}/token/verify-rules.ts`,
      original: 'keyRotation: read.fields.key_rotation ?? false,',
      mutated: 'keyRotation: read.fields.key_rotation ?? true,',
      why: 'a v2 token without key_rotation does not rotate keys',
    },
    {
      id: 'both-versions-accepted',
      file: `${S}/token/decode.ts`,
      original: 'if (v1 !== v2) return v1 ? 1 : 2;',
      mutated: 'if (v1 || v2) return v1 ? 1 : 2;',
      why: 'a token with both "token" and "policy" is ambiguous and must be refused',
    },
    {
      id: 'token-not-trimmed',
      file: `${S}/token/decode.ts`,
      original: 'const trimmed = token.trim();',
      mutated: 'const trimmed = token;',
      why: 'a token read from a header or a file often ends in a newline',
    },
    {
      id: 'array-token-json',
      file: `${S}/token/decode.ts`,
      original: 'if (!isPlainObject(json)) {',
      mutated: "if (json === null || typeof json !== 'object') {",
      why: 'base64 of a JSON array, or a handed-in JSON that is an array or a class instance, is a malformed token (MALFORMED_TOKEN), not a token with bad fields',
    },
    {
      id: 'invalid-field-path',
      file: `${S}/token/decode.ts`,
      original: 'const field = issues[0]?.path[0];',
      mutated: 'const field = issues[0]?.path[1];',
      why: 'INVALID_FIELD names the field that broke the spec, for the service code that goes with it',
    },
    {
      id: 'hash-encoding-default',
      file: `${S}/token/keys.ts`,
      original: "if (value === undefined) return 'hex-text';",
      mutated: "if (value === undefined) return 'raw-digest';",
      why: "v1 tokens hash the hex text by default, as the service's samples do",
    },
    {
      id: 'empty-site-id',
      file: `${S}/token/keys.ts`,
      original: 'options.siteId.length === 0) {',
      mutated: 'options.siteId.length < 0) {',
      why: 'an empty site ID makes tokens no service accepts: refuse it when the issuer is made',
    },
    {
      id: 'empty-access-key',
      file: `${S}/token/keys.ts`,
      original: 'accessKey.length === 0) {',
      mutated: 'accessKey.length < 0) {',
      why: 'an empty access key is a missing secret, not a key',
    },
    {
      id: 'key-rotation-written',
      file: `${S}/token/issue-rules.ts`,
      original: '"key_rotation":${call.keyRotation ?? false}',
      mutated: '"key_rotation":${call.keyRotation ?? true}',
      why: 'an issued v2 token asks for key rotation only when told to',
    },
    {
      id: 'v1-key-rotation-accepted',
      file: `${S}/token/issue-rules.ts`,
      original:
        'if (!v2 && (call.responseFormat !== undefined || call.keyRotation !== undefined)) {',
      mutated: 'if (!v2 && call.responseFormat !== undefined) {',
      why: 'keyRotation has no place in a v1 token: asking for it must be refused, not ignored',
    },
    {
      id: 'json-string-unescaped',
      file: `${S}/token/issue-rules.ts`,
      original: 'const json = PLAIN_TEXT.test(value) ? `"${value}"` : JSON.stringify(value);',
      mutated: 'const json = `"${value}"`;',
      why: 'a user_id or cid with a quote or backslash must be escaped, or the token is not JSON',
    },
    // --- custom data
    {
      id: 'custom-data-oid-dropped',
      file: `${S}/custom-data/custom-data-rules.ts`,
      original: 'oid === undefined ? { user_id: userId, cid } : { user_id: userId, cid, oid },',
      mutated: '{ user_id: userId, cid },',
      why: 'the optional oid (order ID) must reach the license service',
    },
    {
      id: 'custom-data-not-trimmed',
      file: `${S}/custom-data/custom-data-rules.ts`,
      original: 'const trimmed = value.trim();',
      mutated: 'const trimmed = value;',
      why: 'custom data read from a header may carry whitespace around it',
    },
    {
      id: 'custom-data-empty-cid',
      file: `${S}/custom-data/custom-data-rules.ts`,
      original:
        "    cid: text('the content ID'),\n    oid: z.string({ error: mustBe('a string') }).optional(),\n  },\n  { error: mustBe('a JSON object') },",
      mutated:
        "    cid: z.string(),\n    oid: z.string({ error: mustBe('a string') }).optional(),\n  },\n  { error: mustBe('a JSON object') },",
      why: 'decrypted user data without a content ID names no content: refuse it',
    },
    {
      id: 'custom-data-envelope-site',
      file: `${S}/custom-data/custom-data-rules.ts`,
      original:
        'return { drm_type: envelope.drm_type, site_id: envelope.site_id, ...parsed.data };',
      mutated:
        'return { drm_type: envelope.drm_type, site_id: envelope.drm_type, ...parsed.data };',
      why: 'the parsed custom data names the site of its envelope',
    },
    // --- gateway codec
    {
      id: 'gateway-format-mismatch-accepted',
      file: `${S}/gateway/codec-rules.ts`,
      original: "if (isXml !== (format === 'xml')) {",
      mutated: 'if (false) {',
      why: 'the answer must use the format of the request; the service refuses the other one',
    },
    {
      id: 'gateway-answer-bom',
      file: `${S}/gateway/codec-rules.ts`,
      original: "const text = plaintext.replace(/^\\uFEFF/, '').trimStart();",
      mutated: 'const text = plaintext.trimStart();',
      why: 'a site whose serializer writes a BOM before its JSON or XML answer is still answering',
      equivalent:
        'trimStart() right after it removes a leading U+FEFF too (JavaScript counts it as white space)',
    },
    {
      id: 'gateway-answer-body-untrimmed',
      file: `${S}/gateway/codec-rules.ts`,
      original: '  return body.trim();',
      mutated: '  return body;',
      why: 'an answer body with a trailing newline is the same base64 answer',
    },
    // --- HTTP: CORS, guard, deadline, bodies
    {
      id: 'cors-credentials-dropped',
      file: `${S}/http/cors.ts`,
      original: "if (credentials) out['access-control-allow-credentials'] = 'true';",
      mutated: '',
      why: 'a player on another origin sends cookies only if the answer allows credentials',
    },
    {
      id: 'renewal-interval-not-exposed',
      file: `${S}/http/cors.ts`,
      original: 'const exposed = `${header}, ${RENEWAL_INTERVAL_HEADER}`;',
      mutated: 'const exposed = header;',
      why: 'a player on another origin reads x-renewal-interval only if CORS exposes it',
    },
    {
      id: 'renewal-interval-policy-ignored',
      file: `${S}/http/renewal-interval.ts`,
      original: 'if (Number.isInteger(value) && value > 0) return value;',
      mutated: '',
      why: "the token answer's interval is the policy's renewal_duration, which the service counts streams by",
    },
    {
      id: 'renewal-interval-policy-loses',
      file: `${S}/http/renewal-interval.ts`,
      original: "if (policy !== undefined && 'policy_version' in policy) {",
      mutated:
        "if (fallback === undefined && policy !== undefined && 'policy_version' in policy) {",
      why: "the policy's renewal_duration wins over the handler's default",
    },
    {
      id: 'cors-max-age-default',
      file: `${S}/http/cors.ts`,
      original: 'maxAgeSeconds = 600 }',
      mutated: 'maxAgeSeconds = 60 }',
      why: 'the preflight cache time is documented as 600 s',
    },
    {
      id: 'cors-custom-header-not-allowed',
      file: `${S}/http/cors.ts`,
      original: "'access-control-allow-headers': `content-type, ${header}`,",
      mutated: "'access-control-allow-headers': 'content-type',",
      why: 'a player sends its custom data in a header the preflight must allow',
    },
    {
      id: 'timeout-zero-accepted',
      file: `${S}/http/deadline.ts`,
      original: 'value < 1 ||',
      mutated: 'value < 0 ||',
      why: 'authorizeTimeoutMs 0 would refuse every request at once: refuse the option instead',
    },
    {
      id: 'deadline-signal-not-aborted',
      file: `${S}/http/deadline.ts`,
      original: 'if (!outcome.ok && outcome.timedOut) expire();',
      mutated: '',
      why: "authorize's signal must abort at the deadline so the site can stop its own work",
    },
    {
      id: 'body-bom-kept',
      file: `${S}/http/body.ts`,
      original: 'text.charCodeAt(0) === 0xfeff ? text.slice(1) : text',
      mutated: 'text',
      why: 'a JSON body with a BOM is still JSON',
    },
    {
      id: 'max-body-zero-accepted',
      file: `${S}/http/body.ts`,
      original: 'value <= 0) {',
      mutated: 'value < 0) {',
      why: 'maxBodyBytes 0 refuses every request: refuse the option',
    },
    {
      id: 'guard-same-site-allowed',
      file: `${S}/http/request-guard.ts`,
      original: "    fetchSite === 'same-site' ||\n",
      mutated: '',
      why: "a sibling subdomain is another origin: its page must not post with the user's cookies",
    },
    {
      id: 'guard-charset-refused',
      file: `${S}/http/request-guard.ts`,
      original: ".split(';')[0]?.trim().toLowerCase();",
      mutated: '.trim().toLowerCase();',
      why: 'application/json; charset=utf-8 is JSON',
    },
    {
      id: 'guard-same-origin-port',
      file: `${S}/http/request-guard.ts`,
      original: 'return new URL(origin).host === host.toLowerCase();',
      mutated: 'return new URL(origin).hostname === host.toLowerCase();',
      why: 'an older browser (no Sec-Fetch-Site) posting from the same host and port is the site itself',
    },
    {
      id: 'form-plus-edge',
      file: `${S}/http/form-body.ts`,
      original:
        'if (end === 5 || text.charCodeAt(5) === PLUS || text.charCodeAt(end - 1) === PLUS)',
      mutated: 'if (end === 5)',
      why: 'a literal + first or last is a space form decoding trims: the fast reader must give what URLSearchParams gives',
    },
    {
      id: 'form-escape-case',
      file: `${S}/http/form-body.ts`,
      original: 'const second = text.charCodeAt(at + 2) | 0x20;',
      mutated: 'const second = text.charCodeAt(at + 2);',
      why: '%2b and %2B are the same escape: a lower-case one must not fall to another reading',
      equivalent:
        'a lower-case escape the fast reader leaves falls to URLSearchParams, which gives the same value: only slower',
    },
    {
      id: 'hand-read-unknown-member',
      file: `${S}/schemas/plain-object.ts`,
      original: 'if (!known.has(key)) return false;',
      mutated: 'if (!known.has(key)) continue;',
      why: 'an unknown member in a decision or a policy goes to the schema, which refuses it with a sentence',
    },
    {
      id: 'hand-read-class-instance',
      file: `${S}/schemas/plain-object.ts`,
      original: 'return proto === Object.prototype || proto === null;',
      mutated: 'return true;',
      why: 'a class instance or an object with a prototype of its own is read by the schema, not by hand',
    },
    {
      id: 'fast-answer-refusal-0000',
      file: `${S}/gateway/fast-answer.ts`,
      original:
        "if (typeof code !== 'string' || !DIGITS.test(code) || code === SUCCESS_CODE) return undefined;",
      mutated: "if (typeof code !== 'string' || !DIGITS.test(code)) return undefined;",
      why: 'a refusal coded "0000" would read as an allow at the service',
    },
    {
      id: 'policy-bytes-duration-without-limit',
      file: `${S}/token/policy-v1-text.ts`,
      original: 'if (!isSeconds(duration) || limit !== true) return false;',
      mutated: 'if (!isSeconds(duration)) return false;',
      why: 'duration applies only with limit: true; the schema refuses it otherwise',
    },
    {
      id: 'policy-bytes-not-cleared',
      file: `${S}/token/policy-v1-text.ts`,
      original: 'out.fill(0, 0, at);',
      mutated: '',
      why: 'the shared buffer held a policy with content keys: it must be zeroed after use',
    },
    {
      id: 'policy-bytes-busy-ignored',
      file: `${S}/token/policy-v1-text.ts`,
      original: 'if (busy) return false;',
      mutated: '',
      why: 'a token issued from inside a walk (an accessor) must not write over the text in the buffer',
    },
    {
      id: 'policy-bytes-hex-upper',
      file: `${S}/token/policy-v1-text.ts`,
      original: 'const HEX16 = /^[0-9a-f]{32}$/;',
      mutated: 'const HEX16 = /^[0-9a-fA-F]{32}$/;',
      why: 'upper-case hex is refused when issuing (the service reads lower case)',
    },
    // --- token JSON and usual policies read by hand (issue #29): the schema's result, or the schema's
    {
      id: 'token-fast-empty-text',
      file: `${S}/token/read-token-fast.ts`,
      original: "typeof value === 'string' && value.length > 0;",
      mutated: "typeof value === 'string';",
      why: 'an empty site_id, cid or hash is refused by the schema with a sentence; read by hand it would reach the hash',
    },
    {
      id: 'token-fast-base64-unchecked',
      file: `${S}/token/read-token-fast.ts`,
      original: 'isText(value) && isBase64(value);',
      mutated: 'isText(value);',
      why: 'a hash or data that is not standard base64 must be refused as INVALID_FIELD, not half-decoded',
    },
    {
      id: 'token-fast-timestamp-unchecked',
      file: `${S}/token/read-token-fast.ts`,
      original: 'if (issuedMs === undefined) return undefined;',
      mutated: '',
      why: 'a timestamp that is no real time (2026-02-30) is refused by the schema; read by hand it would verify with a NaN time',
    },
    {
      id: 'token-fast-drm-type-unknown',
      file: `${S}/token/read-token-fast.ts`,
      original: 'if (drmType === undefined) return undefined;',
      mutated: '',
      why: 'an unknown drm_type is refused (the emulator answers it with its own code); read by hand it would become the default',
    },
    {
      id: 'token-fast-case-warning-lost',
      file: `${S}/token/read-token-fast.ts`,
      original: 'const warnings = drmTypeCaseWarning(asSent, drmType);',
      mutated: 'const warnings: string[] = [];',
      why: 'a drm_type in another case is read and said: the hand-read token must say it too',
    },
    {
      id: 'token-fast-v1-extra-member',
      file: `${S}/token/read-token-fast.ts`,
      original: 'if (!isBase64Text(data) || !onlyKnown(json, count, V1)) return undefined;',
      mutated: 'if (!isBase64Text(data)) return undefined;',
      why: 'a v1 token with an unknown member, or with both token and policy, is refused by the schema with a sentence',
    },
    {
      id: 'token-fast-response-format-any',
      file: `${S}/token/read-token-fast.ts`,
      original:
        "typeof value === 'string' && (RESPONSE_FORMATS as readonly string[]).includes(value);",
      mutated: "typeof value === 'string';",
      why: 'a response_format outside original/json/custom is refused; read by hand it would pick no known answer',
    },
    {
      id: 'token-fast-key-rotation-any',
      file: `${S}/token/read-token-fast.ts`,
      original: "if (typeof rotation !== 'boolean') return undefined;",
      mutated: '',
      why: 'a key_rotation that is not true or false is refused by the schema',
    },
    {
      id: 'token-fast-v2-member-order',
      file: `${S}/token/read-token-fast.ts`,
      original: 'fields.cid = cid;\n  fields.policy = policy;',
      mutated: 'fields.policy = policy;\n  fields.cid = cid;',
      why: "the hand-read token is the schema's down to the order of its members (what JSON.stringify of it writes)",
    },
    {
      id: 'token-fast-issued-time',
      file: `${S}/token/read-token-fast.ts`,
      original:
        'return { read: { version: 1, fields, warnings, drmTypeAsSent: asSent }, issuedMs };',
      mutated:
        'return { read: { version: 1, fields, warnings, drmTypeAsSent: asSent }, issuedMs: issuedMs + 1000 };',
      why: 'the time parsed by the hand reader is the one the expiry check uses: a wrong one moves every expiry',
    },
    {
      id: 'verify-json-ignored',
      file: `${S}/token/async-verifier.ts`,
      original: 'verify(crypto, key, settings, token, call?.json, call?.now ?? Date.now()),',
      mutated: 'verify(crypto, key, settings, token, undefined, call?.now ?? Date.now()),',
      why: 'the emulator hands in the JSON it decoded: the async verifier must read it, not the token again',
    },
    {
      id: 'policy-fast-unsafe-integer',
      file: `${S}/token/read-policy-fast.ts`,
      original: "typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;",
      mutated: "typeof value === 'number' && Number.isInteger(value) && value >= 0;",
      why: 'a duration past 2^53 is refused by the schema; read by hand it would be a rounded number of seconds',
    },
    {
      id: 'policy-fast-negative-seconds',
      file: `${S}/token/read-policy-fast.ts`,
      original: 'Number.isSafeInteger(value) && value >= 0;',
      mutated: 'Number.isSafeInteger(value);',
      why: 'a negative duration is refused by the schema with a sentence',
    },
    {
      id: 'policy-zero-streams',
      file: `${S}/schemas/policy-v2.ts`,
      original: ".nonnegative('must not be negative (0 is no limit)')",
      mutated: ".positive('must not be negative (0 is no limit)')",
      why: 'max_stream_per_user 0 is no limit (as the emulator counts streams); a token with it must be issued and read',
    },
    {
      id: 'policy-fast-renewal-empty-string',
      file: `${S}/token/read-policy-fast.ts`,
      original: 'const DIGITS = /^\\d+$/;',
      mutated: 'const DIGITS = /^\\d*$/;',
      why: 'an empty renewal_duration string is refused; read by hand it would become 0 seconds',
    },
    {
      id: 'policy-fast-track-types-any',
      file: `${S}/token/read-policy-fast.ts`,
      original:
        "typeof value === 'string' && (ALLOWED_TRACK_TYPES as readonly string[]).includes(value);",
      mutated: "typeof value === 'string';",
      why: 'allowed_track_types outside the list (or in another case) is refused by the schema',
    },
    {
      id: 'policy-fast-expire-date-unchecked',
      file: `${S}/token/read-policy-fast.ts`,
      original: "typeof value === 'string' && parseTimestamp(value) !== undefined;",
      mutated: "typeof value === 'string';",
      why: 'an expire_date that is no real time is refused by the schema',
    },
    {
      id: 'policy-fast-v1-other-members',
      file: `${S}/token/read-policy-fast.ts`,
      original: 'if (playback === undefined) return onlyKnown(json, 0, V1) ? {} : undefined;',
      mutated: 'if (playback === undefined) return {};',
      why: 'a v1 policy with a security_policy or external_key must keep them: read as {} they are silently dropped',
    },
    {
      id: 'policy-fast-v2-version',
      file: `${S}/token/read-policy-fast.ts`,
      original: "if (!isPlainObject(json) || json['policy_version'] !== 2) return undefined;",
      mutated: 'if (!isPlainObject(json)) return undefined;',
      why: 'a v2 policy without "policy_version": 2 is refused by the schema',
    },
    {
      id: 'policy-fast-v2-member-order',
      file: `${S}/token/read-policy-fast.ts`,
      original:
        'if (license !== undefined) {\n    if (!isSeconds(license)) return undefined;\n    read.license_duration = license;\n    count++;\n  }\n  if (expireDate !== undefined) {\n    if (!isTimestamp(expireDate)) return undefined;\n    read.expire_date = expireDate;\n    count++;\n  }',
      mutated:
        'if (expireDate !== undefined) {\n    if (!isTimestamp(expireDate)) return undefined;\n    read.expire_date = expireDate;\n    count++;\n  }\n  if (license !== undefined) {\n    if (!isSeconds(license)) return undefined;\n    read.license_duration = license;\n    count++;\n  }',
      why: "the hand-read policy is the schema's down to the order of its members (JSON.stringify of a read policy is its canonical text)",
    },
    {
      id: 'policy-fast-v2-warnings-lost',
      file: `${S}/token/read-policy.ts`,
      original: 'withV2Warnings(fast, [])',
      mutated: '{ policy: fast, warnings: [] }',
      why: 'a rental_duration without persistent is read and said: the hand-read policy must say it too',
    },
    {
      id: 'base64-length-unchecked',
      file: `${S}/encoding/base64.ts`,
      original: 'if (length % 4 !== 0) return false;',
      mutated: '',
      why: 'unpadded base64 is not canonical: Buffer would half-decode it, the token check must refuse it',
    },
    {
      id: 'base64-pad-inside',
      file: `${S}/encoding/base64.ts`,
      original: "'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/',",
      mutated: "'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=:;<',",
      why: "an '=' (or ':', ';', '<') inside the text is not base64: Buffer stops or skips there",
    },
    {
      id: 'base64-three-pads',
      file: `${S}/encoding/base64.ts`,
      original: 'end = value.charCodeAt(length - 2) === PAD ? length - 2 : length - 1;',
      mutated: 'end = value.charCodeAt(length - 2) === PAD ? length - 3 : length - 1;',
      why: 'a third padding character (or any character before two) would pass unchecked',
    },
    {
      id: 'write-batch-reversed',
      file: `${S}/http/write-batch.ts`,
      original: 'for (const run of now) run();',
      mutated: 'for (const run of now.reverse()) run();',
      why: 'answers of one turn go out in the order they became ready',
    },
    {
      id: 'write-batch-one-throw-stops-all',
      file: `${S}/http/write-batch.ts`,
      original:
        '        try {\n          write();\n          resolve();\n        } catch (error) {\n          reject(error);\n        }',
      mutated: '        write();\n        resolve();',
      why: "one answer's failing write must not leave the rest of its batch unwritten (and their clients waiting)",
    },
    {
      id: 'memo-skips-forever',
      file: `${S}/token/policy-memo.ts`,
      original: 'this.misses++ % MISSES_BEFORE_SKIPPING !== 0',
      mutated: 'this.misses++ >= 0',
      why: 'after a run of different policies, a new object with the last content must still be found again',
    },
    {
      id: 'memo-misses-never-reset',
      file: `${S}/token/policy-memo.ts`,
      original: '    this.misses = 0;',
      mutated: '',
      why: 'once content repeats, every new object of it is known at once, not every eighth',
    },
    // --- the license proxy (issue #38)
    {
      id: 'proxy-403-ignored',
      file: `${S}/proxy/handler.ts`,
      original: 'if (!decision.allow) {',
      mutated: 'if (!decision.allow && decision.status !== 403) {',
      why: 'a user the site says is not entitled would get a token and a license',
    },
    {
      id: 'proxy-user-dropped',
      file: `${S}/proxy/handler.ts`,
      original: '    if (userId !== undefined) grant.userId = userId;\n',
      mutated: '',
      why: "the token would name the default user, not the site's: the service's per-user limits and logs would see one user",
    },
    {
      id: 'proxy-repeat-accepted',
      file: `${S}/proxy/request.ts`,
      original: 'return values.length === 1 ? values[0] : undefined;',
      mutated: 'return values.length >= 1 ? values[0] : undefined;',
      why: 'a query with two cids (or drmTypes) is ambiguous: the site may decide on one while a layer in front reads the other',
    },
    {
      id: 'proxy-cross-site-without-origin',
      file: `${S}/proxy/cors.ts`,
      original: 'return foreign === undefined ? vary : refuse(origin, foreign);',
      mutated: 'return origin === null ? vary : refuse(origin, foreign);',
      why: "a request a browser marks cross-site without an Origin would pass with the user's cookies, where the token endpoint refuses it",
    },
    {
      id: 'proxy-authorize-text-in-events',
      file: `${S}/proxy/handler.ts`,
      original: 'throw siteError(`authorize threw ${errorClassOf(error)};',
      mutated: 'throw siteError(`authorize threw ${String(error)};',
      why: "the site's error text (a database URL with its password) would reach the logs",
    },
    {
      id: 'proxy-on-error-not-called',
      file: `${S}/proxy/handler.ts`,
      original: '      reportError(error, { drmType, cid });\n      throw siteError(`authorize',
      mutated: '      throw siteError(`authorize',
      why: 'the site would never see why its authorize failed',
    },
    {
      id: 'proxy-5xx-relayed',
      file: `${S}/proxy/unwrap.ts`,
      original: 'if (answer.status >= 500) {',
      mutated: 'if (answer.status >= 600) {',
      why: "the service's error page (a stack trace, text/html) would be served on the site's origin",
    },
    {
      id: 'proxy-any-content-type-relayed',
      file: `${S}/proxy/unwrap.ts`,
      original: 'const licenseType = mediaType === undefined || LICENSE_TYPES.has(mediaType);',
      mutated: 'const licenseType = true;',
      why: "an HTML page of the service would be served on the site's origin",
    },
    {
      id: 'proxy-error-code-any-type',
      file: `${S}/proxy/unwrap.ts`,
      original: "if (typeof code !== 'string' && typeof code !== 'number') {",
      mutated: 'if (code === null) {',
      why: 'an errorCode object would make the proxy throw: 500 INTERNAL_ERROR for a bad upstream answer',
    },
    {
      id: 'proxy-deadline-signal-only',
      file: `${S}/proxy/upstream.ts`,
      original: 'response = await Promise.race([fetching, deadline]);',
      mutated: 'response = await fetching;',
      why: 'after a GC the abort reaches no fetch on Node: a silent service would hold the player forever',
    },
    {
      id: 'proxy-body-deadline-dropped',
      file: `${S}/proxy/upstream.ts`,
      original: '      limits.maxAnswerBytes,\n      deadline,\n',
      mutated: '      limits.maxAnswerBytes,\n',
      why: 'a service that sends its head and then stalls would hold the player past the deadline when the abort does not reach its body',
    },
    {
      id: 'proxy-clearkey-no-site',
      file: `${S}/proxy/options.ts`,
      original: "  clearKeyUrl.searchParams.set('siteId', options.siteId);\n",
      mutated: '',
      why: 'the service reads the site of a ClearKey GET from its query: without it no license',
    },
    // --- the node transport's kept connections (issue #38 point 23)
    {
      id: 'pool-keep-alive-hint-ignored',
      file: `${S}/proxy/socket-pool.ts`,
      original: 'if (connection !== undefined) connection.keepMs = lastHintMs;',
      mutated: '',
      why: "a connection the server is about to close would be used: the player's license fails with UPSTREAM_UNREACHABLE",
    },
    {
      id: 'pool-idle-bytes-kept',
      file: `${S}/proxy/socket-pool.ts`,
      original: "    socket.on('data', connection.guard);\n",
      mutated: '',
      why: "bytes the server sent an idle connection would be read as the next call's answer: another user's license",
    },
    {
      id: 'pool-idle-error-unheard',
      file: `${S}/proxy/socket-pool.ts`,
      original: "    socket.on('error', () => undefined);\n",
      mutated: '',
      why: "the service resetting an idle connection would crash the site's process",
    },
    {
      id: 'pool-idle-holds-process',
      file: `${S}/proxy/socket-pool.ts`,
      original: '    socket.unref();\n',
      mutated: '',
      why: 'a script or test that called the proxy could not exit until the service closed its connections',
    },
    {
      id: 'pool-closed-connection-reused',
      file: `${S}/proxy/socket-pool.ts`,
      original: 'if (socket.destroyed || !socket.writable) continue;',
      mutated: '',
      why: 'a call would be written to a connection the server closed: UPSTREAM_UNREACHABLE for a service that is up',
    },
    {
      id: 'answer-head-length-unread',
      file: `${S}/proxy/node-transport.ts`,
      original: '      head.length = Number(value);',
      mutated: '',
      why: 'an answer declared over the limit would be read up to the limit instead of refused at its head',
    },
  ]
    .map((m) => ({
      ...m,
      tests: m.file.includes('/crypto/')
        ? crypto
        : m.file.includes('/schemas/')
          ? [...token, ...gateway, ...http]
          : m.file.includes('/token/') || m.file.includes('/encoding/')
            ? token
            : m.file.includes('/custom-data/')
              ? customData
              : m.file.includes('/gateway/')
                ? gateway
                : m.file.includes('/proxy/')
                  ? proxy
                  : http,
    }))
    .map((m) => ({ ...m, tests: [...m.tests, mutants] })),
};
