import { describe, expect, it } from 'vitest';
import {
  answerNonce,
  createGatewayHandler,
  decodeGatewayResponse,
  encodeGatewayRequest,
  encrypt,
  type GatewayDecision,
  type GatewayEvent,
  type GatewayRequest,
} from '../../src/index.ts';
import { failure } from '../support/failure.ts';

const KEY = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const json: GatewayRequest = {
  format: 'json',
  user_id: 'u',
  cid: 'c',
  nonce: 'n1',
  drm_type: 'Widevine',
};
const xml: GatewayRequest = { format: 'xml', user_id: 'u', cid: 'c', nonce: 'n2' };

function gateway(decide: () => GatewayDecision, more: object = {}) {
  const events: GatewayEvent[] = [];
  const handler = createGatewayHandler({
    siteKey: KEY,
    authorize: decide,
    onEvent: (e) => events.push(e),
    ...more,
  });
  const ask = async (request: GatewayRequest) => {
    const response = await handler(
      new Request('http://site.test/gw', {
        method: 'POST',
        body: encodeGatewayRequest(request, KEY),
      }),
    );
    return decodeGatewayResponse(await response.text(), request.format, KEY);
  };
  return { ask, events };
}

describe('gateway failure codes', () => {
  it('a JSON refusal may carry any numeric code the site defines, such as "401"', async () => {
    const { ask } = gateway(() => ({ allow: false, error_code: '401', error_message: 'sign in' }));
    expect(await ask(json)).toEqual({
      format: 'json',
      error_code: '401',
      error_message: 'sign in',
      playback_policy: { limit: false, persistent: false },
      nonce: 'n1',
    });
  });

  it("an XML refusal needs 4 digits: a 3-digit code becomes site-kit's 9003, and the event says why", async () => {
    const { ask, events } = gateway(() => ({
      allow: false,
      error_code: '401',
      error_message: 'sign in',
    }));
    expect(await ask(xml)).toMatchObject({ ERROR: '9003', NONCE: 'n2' });
    expect(events.at(-1)).toMatchObject({ type: 'error', kind: 'INVALID_DECISION' });
    expect((events.at(-1) as { reason: string }).reason).toMatch(
      /"401" is not 4 digits, which the XML/,
    );
  });

  it('a refusal code that is not numeric, or is "0000", is refused as a decision', async () => {
    for (const code of ['40a', '0000', '', ' 401']) {
      const { ask } = gateway(() => ({ allow: false, error_code: code, error_message: 'no' }));
      expect((await ask(json)) as { error_code: string }).toMatchObject({ error_code: '9003' });
    }
  });

  it("site-kit's own codes can be chosen by the site when its codes use 9001-9003", async () => {
    const { ask, events } = gateway(
      () => {
        throw new Error('x');
      },
      { errorCodes: { AUTHORIZE_FAILED: '5002' } },
    );
    expect(await ask(json)).toMatchObject({
      error_code: '5002',
      error_message: 'the site could not decide',
    });
    expect(events.at(-1)).toMatchObject({ kind: 'AUTHORIZE_FAILED', error_code: '5002' });
  });

  it('chosen codes must be 4 digits, not "0000", distinct, and of a known kind', () => {
    const make = (errorCodes: object) => () =>
      createGatewayHandler({
        siteKey: KEY,
        authorize: () => ({ allow: false, error_code: '1', error_message: 'x' }),
        errorCodes,
      });
    expect(failure(make({ INVALID_REQUEST: '501' })).message).toMatch(
      /errorCodes.INVALID_REQUEST: must be 4 digits other than "0000"/,
    );
    expect(failure(make({ INVALID_REQUEST: '0000' })).message).toMatch(
      /must be 4 digits other than "0000"/,
    );
    expect(failure(make({ INVALID_REQUEST: '9002' })).message).toMatch(
      /each kind needs its own code/,
    );
    expect(failure(make({ BROKEN: '5000' })).message).toMatch(/errorCodes.BROKEN: unknown kind/);
  });
});

describe('gateway answers as the license service reads them', () => {
  const decode = (plaintext: string, format: 'json' | 'xml') =>
    decodeGatewayResponse(encrypt(plaintext, KEY), format, KEY);

  it('a refusal leaves playback_policy out; an allowing answer must have it', () => {
    expect(decode('{"error_code":"4031","error_message":"no","nonce":"n"}', 'json')).toMatchObject({
      error_code: '4031',
    });
    expect(
      failure(() => decode('{"error_code":"0000","error_message":"ok","nonce":"n"}', 'json'))
        .message,
    ).toContain('answer.playback_policy: is required when the answer allows');
  });

  it('a refusal without nonce is still a refusal, with its code; an allowing answer without one is not', () => {
    const refusal = decode('{"error_code":"4031","error_message":"not paid"}', 'json');
    expect(refusal).toEqual({ format: 'json', error_code: '4031', error_message: 'not paid' });
    expect(answerNonce(refusal)).toBeUndefined();
    expect(
      failure(() =>
        decode('{"error_code":"0000","error_message":"ok","playback_policy":{}}', 'json'),
      ).message,
    ).toContain('answer.nonce: is required when the answer allows');
    const xmlRefusal = decode('<RES><ERROR>4031</ERROR><ERRMSG>no</ERRMSG></RES>', 'xml');
    expect(xmlRefusal).toEqual({ format: 'xml', ERROR: '4031', ERRMSG: 'no' });
    expect(
      failure(() => decode('<RES><ERROR>0000</ERROR><ERRMSG>ok</ERRMSG></RES>', 'xml')).message,
    ).toContain('RES.NONCE: is required when the answer allows');
  });
});
