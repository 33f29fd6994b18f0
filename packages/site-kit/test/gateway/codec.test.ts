import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeGatewayRequest,
  decodeGatewayResponse,
  decrypt,
  encodeGatewayAnswer,
  encodeGatewayRequest,
  encrypt,
  SiteKitError,
  type GatewayAnswer,
  type GatewayRequest,
} from '../../src/index.ts';
import { gatewayVector, vectors } from '../../../../test/support/vectors.ts';
import { failure } from '../support/failure.ts';

const gatewayVectors = vectors.gateway;

const KEY = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof SiteKitError) return error.code;
    throw error;
  }
  return undefined;
}

describe('gateway vectors', () => {
  it('has the four gateway vectors (JSON and XML, both directions)', () => {
    expect(gatewayVectors.map((v) => `${v.format} ${v.direction}`).sort()).toEqual([
      'json request',
      'json response',
      'xml request',
      'xml response',
    ]);
  });

  for (const v of gatewayVectors) {
    it(`${v.name}: the ciphertext decrypts to the plaintext and the form body carries it`, () => {
      expect(decrypt(v.ciphertext, v.site_key)).toBe(v.plaintext);
      expect(new URLSearchParams(v.form_body).get('data')).toBe(v.ciphertext);
    });
  }

  it('encodes the JSON request vector byte for byte', () => {
    const v = gatewayVector('json', 'request');
    const request: GatewayRequest = {
      format: 'json',
      user_id: 'test-user',
      cid: 'DEMOtest-cid',
      oid: '',
      nonce: '3426u3050329384g',
      drm_type: 'Widevine',
    };
    expect(encodeGatewayRequest(request, v.site_key)).toBe(v.form_body);
    expect(decodeGatewayRequest(v.form_body, v.site_key)).toEqual(request);
  });

  it('encodes the XML request vector byte for byte', () => {
    const v = gatewayVector('xml', 'request');
    const request: GatewayRequest = {
      format: 'xml',
      user_id: 'test-user',
      cid: 'DEMOtest-cid',
      oid: '',
      nonce: 'n0nce-xml-1',
    };
    expect(encodeGatewayRequest(request, v.site_key)).toBe(v.form_body);
    expect(decodeGatewayRequest(v.form_body, v.site_key)).toEqual(request);
  });

  it('encodes and decodes the JSON response vector', () => {
    const v = gatewayVector('json', 'response');
    const answer: GatewayAnswer = {
      format: 'json',
      error_code: '0000',
      error_message: 'success',
      playback_policy: { limit: true, persistent: false, duration: 86400 },
      nonce: '3426u3050329384g',
    };
    expect(encodeGatewayAnswer(answer, v.site_key)).toBe(v.ciphertext);
    expect(decodeGatewayResponse(v.ciphertext, 'json', v.site_key)).toEqual(answer);
  });

  it('encodes and decodes the XML response vector', () => {
    const v = gatewayVector('xml', 'response');
    const answer: GatewayAnswer = {
      format: 'xml',
      ERROR: '0000',
      ERRMSG: 'success',
      LIMIT: 'Y',
      PD_START: '2026-01-01T00:00:00Z',
      PD_END: '2026-02-01T00:00:00Z',
      PC: { HDCP: 1, 'CGMS-A': -1, APS: 0 },
      NONCE: 'n0nce-xml-1',
    };
    expect(encodeGatewayAnswer(answer, v.site_key)).toBe(v.ciphertext);
    expect(decodeGatewayResponse(v.ciphertext, 'xml', v.site_key)).toEqual(answer);
  });
});

describe('request bodies', () => {
  const v = gatewayVector('json', 'request');

  it('accepts a form body whose + signs form decoding turned into spaces', () => {
    const body = `data=${v.ciphertext}`; // '+' left unescaped: URLSearchParams reads it as a space
    expect(decodeGatewayRequest(body, KEY).nonce).toBe('3426u3050329384g');
  });

  it('accepts the bare base64 text as the body', () => {
    expect(decodeGatewayRequest(v.ciphertext, KEY).cid).toBe('DEMOtest-cid');
    expect(decodeGatewayRequest(`${v.ciphertext}\r\n`, KEY).cid).toBe('DEMOtest-cid');
  });

  it('reports a body without data, a wrong key and a schema break with their own codes', () => {
    expect(codeOf(() => decodeGatewayRequest('other=1', KEY))).toBe('INVALID_GATEWAY_REQUEST');
    expect(codeOf(() => decodeGatewayRequest(v.form_body, 'b'.repeat(32)))).toBe('DECRYPT_FAILED');
    expect(codeOf(() => decodeGatewayRequest('data=%25%25', KEY))).toBe('INVALID_BASE64');
    const broken = `data=${encodeURIComponent(encrypt('{"user_id":"u","cid":"c","nonce":"n","drm_type":"Marlin"}', KEY))}`;
    const error = failure(() => decodeGatewayRequest(broken, KEY));
    expect(error.code).toBe('INVALID_GATEWAY_REQUEST');
    expect(error.message).toContain('request.drm_type: must be one of');
  });

  it('drops members the spec does not define instead of refusing the request', () => {
    const body = encrypt('{"user_id":"u","cid":"c","nonce":"n","drm_type":"NCG","extra":1}', KEY);
    expect(decodeGatewayRequest(body, KEY)).toEqual({
      format: 'json',
      user_id: 'u',
      cid: 'c',
      nonce: 'n',
      drm_type: 'NCG',
    });
  });

  it('refuses to encode a request that breaks the spec, naming the field', () => {
    const error = failure(() =>
      encodeGatewayRequest(
        { format: 'json', user_id: 'u', cid: '', nonce: 'n', drm_type: 'NCG' },
        KEY,
      ),
    );
    expect(error.code).toBe('INVALID_GATEWAY_REQUEST');
    expect(error.message).toContain('request.cid: must not be empty');
  });
});

describe('answers', () => {
  it('escapes XML special characters and reads them back', () => {
    const answer: GatewayAnswer = {
      format: 'xml',
      ERROR: '1234',
      ERRMSG: `a<b & "c" 'd'>`,
      NONCE: '<&>',
    };
    const body = encodeGatewayAnswer(answer, KEY);
    expect(decrypt(body, KEY)).toContain(
      '<ERRMSG>a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;</ERRMSG>',
    );
    expect(decodeGatewayResponse(body, 'xml', KEY)).toEqual(answer);
  });

  it('writes PACKINFO as attributes of 16-byte base64 values', () => {
    const sixteen = Buffer.alloc(16, 7).toString('base64');
    const answer: GatewayAnswer = {
      format: 'xml',
      ERROR: '0000',
      ERRMSG: 'success',
      LIMIT: 'N',
      PACKINFO: { KEYID: sixteen, KEY: sixteen },
      NONCE: 'n',
    };
    const body = encodeGatewayAnswer(answer, KEY);
    expect(decrypt(body, KEY)).toContain(`<PACKINFO KEYID="${sixteen}" KEY="${sixteen}"/>`);
    expect(decodeGatewayResponse(body, 'xml', KEY)).toEqual(answer);
  });

  it('refuses an answer in the other format than the request', () => {
    const v = gatewayVector('xml', 'response');
    const error = failure(() => decodeGatewayResponse(v.ciphertext, 'json', v.site_key));
    expect(error.code).toBe('INVALID_GATEWAY_RESPONSE');
    expect(error.message).toContain('the request was JSON');
  });

  it('refuses a success answer without playback_policy and a bad code, naming the field', () => {
    const noPolicy = encrypt('{"error_code":"0000","error_message":"ok","nonce":"n"}', KEY);
    expect(failure(() => decodeGatewayResponse(noPolicy, 'json', KEY)).message).toContain(
      'answer.playback_policy: is required when the answer allows (error code "0000")',
    );
    const badCode = encrypt('{"error_code":"12a","error_message":"no","nonce":"n"}', KEY);
    expect(failure(() => decodeGatewayResponse(badCode, 'json', KEY)).message).toContain(
      'answer.error_code: must be a numeric code ("0000" is success)',
    );
    const badHdcp = encrypt(
      '<?xml version="1.0"?><RES><ERROR>0000</ERROR><ERRMSG>ok</ERRMSG><PC HDCP="2"/><NONCE>n</NONCE></RES>',
      KEY,
    );
    expect(codeOf(() => decodeGatewayResponse(badHdcp, 'xml', KEY))).toBe(
      'INVALID_GATEWAY_RESPONSE',
    );
  });

  it('fills the old specification defaults for PC attributes that are absent', () => {
    const body = encrypt(
      '<?xml version="1.0"?><RES><ERROR>0000</ERROR><ERRMSG>ok</ERRMSG><PC HDCP="1"/><NONCE>n</NONCE></RES>',
      KEY,
    );
    const answer = decodeGatewayResponse(body, 'xml', KEY);
    expect(answer.format === 'xml' && answer.PC).toEqual({ HDCP: 1, 'CGMS-A': -1, APS: 0 });
  });

  it('reports a wrong key as DECRYPT_FAILED', () => {
    const v = gatewayVector('json', 'response');
    expect(codeOf(() => decodeGatewayResponse(v.ciphertext, 'json', 'b'.repeat(32)))).toBe(
      'DECRYPT_FAILED',
    );
  });
});

describe('round trips (property)', () => {
  // XML 1.0 cannot carry most control characters, so the generated text leaves them out.
  const text = fc.string({ unit: 'grapheme', minLength: 0, maxLength: 40 });
  const nonEmpty = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 });

  it('every valid request decodes to itself, in both formats', () => {
    fc.assert(
      fc.property(
        text,
        nonEmpty,
        fc.option(text, { nil: undefined }),
        nonEmpty,
        fc.constantFrom('json', 'xml'),
        (user_id, cid, oid, nonce, format) => {
          const request: GatewayRequest =
            format === 'json'
              ? { format, user_id, cid, nonce, drm_type: 'FairPlay' }
              : { format, user_id, cid, nonce };
          if (oid !== undefined) request.oid = oid;
          expect(decodeGatewayRequest(encodeGatewayRequest(request, KEY), KEY)).toEqual(request);
        },
      ),
      { numRuns: 300 },
    );
  });
});
