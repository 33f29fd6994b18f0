import { describe, expect, it } from 'vitest';
import {
  createGatewayHandler,
  decodeGatewayResponse,
  encodeGatewayRequest,
  encrypt,
  SiteKitError,
  type GatewayDecision,
  type GatewayEvent,
  type GatewayHandlerOptions,
  type GatewayRequest,
} from '../../src/index.ts';
import { gatewayVector } from '../../../../test/support/vectors.ts';

const KEY = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const NOW = Date.UTC(2026, 0, 1);
const CENC = {
  key_id: '00112233445566778899aabbccddeeff',
  key: 'ffeeddccbbaa99887766554433221100',
  iv: '0123456789abcdef0123456789abcdef',
};

const jsonRequest: GatewayRequest = {
  format: 'json',
  user_id: 'user-1',
  cid: 'movie-1',
  oid: 'order-9',
  nonce: 'nonce-json',
  device_id: 'dev-1',
  device_type: 'Android',
  drm_type: 'Widevine',
};
const xmlRequest: GatewayRequest = {
  format: 'xml',
  user_id: 'user-1',
  cid: 'movie-1',
  nonce: 'nonce-xml',
};

function setup(
  decide: GatewayHandlerOptions['authorize'],
  more: Partial<GatewayHandlerOptions> = {},
) {
  const events: GatewayEvent[] = [];
  const seen: GatewayRequest[] = [];
  const handler = createGatewayHandler({
    siteKey: KEY,
    authorize: (request) => {
      seen.push(request);
      return decide(request);
    },
    onEvent: (event) => events.push(event),
    now: () => NOW,
    ...more,
  });
  const post = (body: RequestInit['body'], init: RequestInit = {}) =>
    handler(new Request('http://site.test/gateway', { method: 'POST', body, ...init }));
  return { handler, post, events, seen };
}

const allow = (
  decision: Partial<Extract<GatewayDecision, { allow: true }>> = {},
): GatewayDecision => ({
  allow: true,
  playback_policy: { limit: true, duration: 3600 },
  ...decision,
});

async function answerOf(response: Response, format: 'json' | 'xml') {
  expect(response.status).toBe(200);
  return decodeGatewayResponse(await response.text(), format, KEY);
}

describe('gateway handler: answers', () => {
  it('hands authorize the typed request and answers the JSON decision with its nonce', async () => {
    const { post, seen } = setup(() =>
      allow({
        security_policy: { hardware_drm: true, output_protect: { control_hdcp: 2 } },
        external_key: { mpeg_cenc: CENC },
        response_user_id: 'real-user',
      }),
    );
    const answer = await answerOf(await post(encodeGatewayRequest(jsonRequest, KEY)), 'json');
    expect(seen).toEqual([jsonRequest]);
    expect(answer).toEqual({
      format: 'json',
      error_code: '0000',
      error_message: 'success',
      response_user_id: 'real-user',
      playback_policy: { limit: true, duration: 3600 },
      security_policy: { hardware_drm: true, output_protect: { control_hdcp: 2 } },
      external_key: { mpeg_cenc: CENC },
      nonce: 'nonce-json',
    });
  });

  it('answers a JSON refusal with the site code and message', async () => {
    const { post } = setup(() => ({ allow: false, error_code: '1111', error_message: 'not paid' }));
    const answer = await answerOf(await post(encodeGatewayRequest(jsonRequest, KEY)), 'json');
    expect(answer).toEqual({
      format: 'json',
      error_code: '1111',
      error_message: 'not paid',
      // The main spec marks playback_policy required; a refusal carries the spec's defaults.
      playback_policy: { limit: false, persistent: false },
      nonce: 'nonce-json',
    });
  });

  it('answers the JSON vector request with the JSON vector response, byte for byte', async () => {
    const req = gatewayVector('json', 'request');
    const res = gatewayVector('json', 'response');
    const { post } = setup(() =>
      allow({ playback_policy: { limit: true, persistent: false, duration: 86400 } }),
    );
    expect(
      await (
        await post(req.form_body, {
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        })
      ).text(),
    ).toBe(res.ciphertext);
  });

  it('answers the XML vector request with the XML vector response, byte for byte', async () => {
    const req = gatewayVector('xml', 'request');
    const res = gatewayVector('xml', 'response');
    const { post, seen } = setup(() =>
      allow({
        playback_policy: { limit: true, expire_date: '2026-02-01T00:00:00Z' },
        security_policy: { output_protect: { control_hdcp: 2 } },
      }),
    );
    expect(await (await post(req.form_body)).text()).toBe(res.ciphertext);
    expect(seen[0]?.format).toBe('xml');
  });

  it('writes PD_END as now + duration, PC defaults and extras, and PACKINFO from mpeg_cenc', async () => {
    const { post } = setup(() =>
      allow({
        playback_policy: { limit: true, duration: 7200 },
        external_key: { mpeg_cenc: CENC },
        xml: { cgms_a: 3, aps: 2 },
      }),
    );
    const answer = await answerOf(await post(encodeGatewayRequest(xmlRequest, KEY)), 'xml');
    expect(answer).toEqual({
      format: 'xml',
      ERROR: '0000',
      ERRMSG: 'success',
      LIMIT: 'Y',
      PD_START: '2026-01-01T00:00:00Z',
      PD_END: '2026-01-01T02:00:00Z',
      PC: { HDCP: 0, 'CGMS-A': 3, APS: 2 },
      PACKINFO: {
        KEYID: Buffer.from(CENC.key_id, 'hex').toString('base64'),
        KEY: Buffer.from(CENC.key, 'hex').toString('base64'),
        IV: Buffer.from(CENC.iv, 'hex').toString('base64'),
      },
      NONCE: 'nonce-xml',
    });
  });

  it('answers unlimited XML playback with LIMIT N and no period', async () => {
    const { post } = setup(() => allow({ playback_policy: { limit: false } }));
    const answer = await answerOf(await post(encodeGatewayRequest(xmlRequest, KEY)), 'xml');
    expect(answer).toEqual({
      format: 'xml',
      ERROR: '0000',
      ERRMSG: 'success',
      LIMIT: 'N',
      PC: { HDCP: 0, 'CGMS-A': -1, APS: 0 },
      NONCE: 'nonce-xml',
    });
  });

  it('answers duration 0 (no limit, as in a JSON answer) with LIMIT N and no period', async () => {
    const { post } = setup(() => allow({ playback_policy: { limit: true, duration: 0 } }));
    const answer = await answerOf(await post(encodeGatewayRequest(xmlRequest, KEY)), 'xml');
    expect(answer).toMatchObject({ ERROR: '0000', LIMIT: 'N' });
    expect(answer).not.toHaveProperty('PD_START');
    expect(answer).not.toHaveProperty('PD_END');
  });

  it('writes no period that does not start before it ends (its own reader and the service refuse it)', async () => {
    const cases = [
      {
        playback_policy: { limit: true, expire_date: '2026-01-01T00:00:00Z' },
        reason:
          'The playback period does not start before it ends (PD_START 2026-01-01T00:00:00Z, PD_END 2026-01-01T00:00:00Z): grant a later expire_date, or duration 0 for no limit.',
      },
      {
        playback_policy: { limit: true, duration: 0 },
        xml: { pd_start: '2026-01-02T00:00:00Z' },
        reason:
          'playback_policy.duration 0 means no limit, and the XML answer cannot carry xml.pd_start without an end (PD_END): give a duration above 0 or an expire_date, or leave xml.pd_start out.',
      },
    ];
    for (const { reason, ...decision } of cases) {
      const { post, events } = setup(() => allow(decision));
      const answer = await answerOf(await post(encodeGatewayRequest(xmlRequest, KEY)), 'xml');
      expect(answer).toMatchObject({ ERROR: '9003' });
      expect(events.at(-1)).toMatchObject({ type: 'error', error_code: '9003', reason });
    }
  });

  it('answers an XML refusal and escapes special characters', async () => {
    const { post } = setup(() => ({
      allow: false,
      error_code: '2001',
      error_message: 'a < b & "c"',
    }));
    const request = { ...xmlRequest, nonce: '<n&n>' };
    const answer = await answerOf(await post(encodeGatewayRequest(request, KEY)), 'xml');
    expect(answer).toEqual({ format: 'xml', ERROR: '2001', ERRMSG: 'a < b & "c"', NONCE: '<n&n>' });
  });

  it('accepts + turned into spaces, a bare base64 body and an async authorize', async () => {
    const { post } = setup(async () => allow());
    const data = new URLSearchParams(encodeGatewayRequest(jsonRequest, KEY)).get('data') as string;
    expect(data).toContain('+');
    for (const body of [`data=${data}`, data, `${data}\n`]) {
      const answer = await answerOf(await post(body), 'json');
      expect(answer.format === 'json' && answer.nonce).toBe('nonce-json');
    }
  });

  it('reports the request and the decision to onEvent, without keys', async () => {
    const { post, events } = setup(() => allow({ external_key: { mpeg_cenc: CENC } }));
    await post(encodeGatewayRequest(jsonRequest, KEY));
    expect(events.map((e) => e.type)).toEqual(['request', 'decision']);
    expect(events[1]).toMatchObject({ allow: true, error_code: '0000', cid: 'movie-1' });
    expect(JSON.stringify(events)).not.toContain(CENC.key);
  });

  it('keeps answering when onEvent throws', async () => {
    const { post } = setup(() => allow(), {
      onEvent: () => {
        throw new Error('log sink down');
      },
    });
    expect((await post(encodeGatewayRequest(jsonRequest, KEY))).status).toBe(200);
  });
});

describe('gateway handler: encrypted errors', () => {
  it('answers a request that breaks the schema with 9001 and the nonce it could read', async () => {
    const { post, events, seen } = setup(() => allow());
    const body = encrypt('{"user_id":"u","cid":"c","nonce":"n-1","drm_type":"Marlin"}', KEY);
    const answer = await answerOf(await post(body), 'json');
    expect(answer).toEqual({
      format: 'json',
      error_code: '9001',
      error_message: 'invalid gateway request',
      playback_policy: { limit: false, persistent: false },
      nonce: 'n-1',
    });
    expect(seen).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: 'error', error_code: '9001' });
    expect((events.at(-1) as { reason: string }).reason).toContain('request.drm_type');
  });

  it('answers an XML request without NONCE with 9001 and an empty NONCE', async () => {
    const { post } = setup(() => allow());
    const body = encrypt(
      '<?xml version="1.0" encoding="utf-8"?><RES><USERID>u</USERID><CID>c</CID></RES>',
      KEY,
    );
    expect(await answerOf(await post(body), 'xml')).toEqual({
      format: 'xml',
      ERROR: '9001',
      ERRMSG: 'invalid gateway request',
      NONCE: '',
    });
  });

  it('answers 9002 when authorize throws; onEvent gets the class, onAuthorizeError the error', async () => {
    const thrown = new TypeError('password=hunter2 in /srv/site/db.ts:12');
    const reported: unknown[] = [];
    const { post, events } = setup(
      () => {
        throw thrown;
      },
      { onAuthorizeError: (error, request) => reported.push(error, request.cid) },
    );
    const response = await post(encodeGatewayRequest(jsonRequest, KEY));
    const answer = await answerOf(response, 'json');
    expect(answer).toMatchObject({ error_code: '9002', nonce: 'nonce-json' });
    expect(JSON.stringify(answer)).not.toContain('hunter2');
    expect(events.at(-1)).toMatchObject({
      type: 'error',
      kind: 'AUTHORIZE_FAILED',
      error_code: '9002',
    });
    const reason = (events.at(-1) as { reason: string }).reason;
    expect(reason).toBe(
      'authorize threw an error of class TypeError; the error itself went to onAuthorizeError',
    );
    expect(JSON.stringify(events)).not.toContain('hunter2');
    expect(reported).toEqual([thrown, jsonRequest.cid]);
  });

  it('answers 9003 for a decision that breaks the strict rules, naming the field in onEvent', async () => {
    const { post, events } = setup(
      () => ({ allow: true, playback_policy: { limit: false, duration: 60 } }) as GatewayDecision,
    );
    const answer = await answerOf(await post(encodeGatewayRequest(jsonRequest, KEY)), 'json');
    expect(answer).toMatchObject({ error_code: '9003', nonce: 'nonce-json' });
    expect((events.at(-1) as { reason: string }).reason).toContain(
      'decision.playback_policy.duration',
    );
  });

  it('answers 9003 for decisions that are not decisions at all', async () => {
    for (const bad of [
      undefined,
      'yes',
      { allow: false, error_code: '0000', error_message: 'x' },
    ]) {
      const { post } = setup(() => bad as unknown as GatewayDecision);
      const answer = await answerOf(await post(encodeGatewayRequest(jsonRequest, KEY)), 'json');
      expect(answer).toMatchObject({ error_code: '9003' });
    }
  });

  it('answers 9003 for settings the XML answer cannot carry, instead of dropping them', async () => {
    const { post, events } = setup(() =>
      allow({
        security_policy: { hardware_drm: true },
        external_key: { hls_aes: { key: CENC.key } },
      }),
    );
    const answer = await answerOf(await post(encodeGatewayRequest(xmlRequest, KEY)), 'xml');
    expect(answer).toMatchObject({ ERROR: '9003', NONCE: 'nonce-xml' });
    const reason = (events.at(-1) as { reason: string }).reason;
    expect(reason).toContain('security_policy.hardware_drm');
    expect(reason).toContain('external_key.hls_aes');
  });

  it('answers 9003 for a limited XML period without duration or expire_date', async () => {
    const { post } = setup(() => allow({ playback_policy: { limit: true } }));
    const answer = await answerOf(await post(encodeGatewayRequest(xmlRequest, KEY)), 'xml');
    expect(answer).toMatchObject({ ERROR: '9003' });
  });
});

describe('gateway handler: HTTP refusals', () => {
  it('gives one identical 400 answer whatever makes the body unreadable', async () => {
    const { post, events } = setup(() => allow());
    const wrongKey = encodeGatewayRequest(jsonRequest, 'b'.repeat(32));
    const bodies = [
      '',
      'other=1',
      'data=%%%',
      'data=QUJD', // 3 bytes: not a whole block
      wrongKey, // bad padding, or garbage
      `data=${encodeURIComponent(encrypt('hello', KEY))}`, // neither JSON nor XML
      `data=${encodeURIComponent(encrypt('<RES><USERID>', KEY))}`, // broken XML
      `data=${encodeURIComponent(encrypt('{"user_id":', KEY))}`, // broken JSON
    ];
    const answers = await Promise.all(
      bodies.map(async (body) => {
        const response = await post(body);
        return {
          status: response.status,
          headers: [...response.headers],
          text: await response.text(),
        };
      }),
    );
    for (const answer of answers) expect(answer).toEqual(answers[0]);
    expect(answers[0]?.status).toBe(400);
    // The events say more (no data parameter, bad base64, a partial block: all visible in the body),
    // but never which step failed after decryption, a padding oracle for whoever reads the site's
    // log: bad padding, garbage, not JSON nor XML, broken XML and broken JSON share one reason.
    const reasons = events.map((e) => (e as { reason: string }).reason);
    const damaged =
      'Decryption failed (bad PKCS7 padding, not UTF-8, or neither JSON nor XML): the site key is wrong or the body was changed.';
    expect(reasons.filter((r) => r === damaged)).toHaveLength(4);
    expect(new Set(reasons).size).toBe(4);
  });

  it('answers 405 with Allow: POST to other methods', async () => {
    const { handler } = setup(() => allow());
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const response = await handler(new Request('http://site.test/gateway', { method }));
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
    }
  });

  it('answers 413 to a body over maxBodyBytes, declared or streamed', async () => {
    const { post } = setup(() => allow(), { maxBodyBytes: 100 });
    expect((await post('x'.repeat(101))).status).toBe(413);
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1;
        controller.enqueue(new Uint8Array(64));
      },
    });
    const response = await post(endless, { duplex: 'half' } as RequestInit);
    expect(response.status).toBe(413);
    expect(pulled).toBeLessThan(10);
  });

  it('checks its options when created', () => {
    const authorize = () => allow();
    expect(() => createGatewayHandler({ siteKey: 'short', authorize })).toThrow(SiteKitError);
    expect(() =>
      createGatewayHandler({ siteKey: KEY, authorize: 'no' as unknown as typeof authorize }),
    ).toThrow(/authorize: must be a function/);
    expect(() => createGatewayHandler({ siteKey: KEY, authorize, maxBodyBytes: 0 })).toThrow(
      /maxBodyBytes/,
    );
  });
});
