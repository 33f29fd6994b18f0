// A license service answers each broken period or output-control setting of a gateway answer with
// its own code (8707-8709, 8712, 8715, 8716): the reader names the member and what is wrong with it.
import { describe, expect, it } from 'vitest';
import { decodeGatewayResponse, encrypt, GatewayResponseError } from '../../src/index.ts';
import { failure } from '../support/failure.ts';

const KEY = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const ok = '<ERROR>0000</ERROR><ERRMSG>ok</ERRMSG>';
const xml = (inner: string) =>
  encrypt(`<?xml version="1.0" encoding="utf-8"?><RES>${ok}${inner}<NONCE>n</NONCE></RES>`, KEY);

describe('GatewayResponseError names the member and the problem', () => {
  it.each([
    ['<LIMIT>Y</LIMIT><PD_END>2026-03-01 12:00</PD_END>', 'PD_END', 'format'],
    ['<LIMIT>Y</LIMIT><PD_END>2026-02-30T12:00:00Z</PD_END>', 'PD_END', 'value'],
    ['<LIMIT>Y</LIMIT>', 'PD_END', 'value'],
    [
      '<LIMIT>Y</LIMIT><PD_START>2026-03-02T00:00:00Z</PD_START><PD_END>2026-03-01T00:00:00Z</PD_END>',
      'PD_START',
      'order',
    ],
    ['<PC HDCP="2"/>', 'PC.HDCP', 'value'],
    ['<PC CGMS-A="9"/>', 'PC.CGMS-A', 'value'],
    ['<PC APS="x"/>', 'PC.APS', 'value'],
  ])('%s: %s, %s', (inner, member, problem) => {
    const error = failure(() => decodeGatewayResponse(xml(inner), 'xml', KEY));
    expect(error).toBeInstanceOf(GatewayResponseError);
    expect(error.code).toBe('INVALID_GATEWAY_RESPONSE');
    expect({
      member: (error as GatewayResponseError).member,
      problem: (error as GatewayResponseError).problem,
    }).toEqual({ member, problem });
    expect(error.message).toContain(`RES.${member.replace('.', '.@_')}`);
  });

  it('a JSON answer names its member path too', () => {
    const text = encrypt(
      JSON.stringify({
        error_code: '0000',
        error_message: 'ok',
        playback_policy: { limit: true, expire_date: 'tomorrow' },
        nonce: 'n',
      }),
      KEY,
    );
    const error = failure(() => decodeGatewayResponse(text, 'json', KEY)) as GatewayResponseError;
    expect([error.member, error.problem]).toEqual(['playback_policy.expire_date', 'format']);
  });
});
