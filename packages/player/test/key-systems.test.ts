import { describe, expect, test } from 'vitest';
import { drmTypeFor, parseServiceError } from '../src/index.ts';

describe('drmTypeFor', () => {
  test.each([
    ['com.widevine.alpha', 'Widevine'],
    ['com.widevine.alpha.experiment', 'Widevine'],
    ['com.microsoft.playready', 'PlayReady'],
    ['com.microsoft.playready.hardware', 'PlayReady'],
    ['com.microsoft.playready.recommendation.3000', 'PlayReady'],
    ['com.chromecast.playready', 'PlayReady'],
    ['com.apple.fps', 'FairPlay'],
    ['com.apple.fps.1_0', 'FairPlay'],
    ['com.apple.fps.3_0', 'FairPlay'],
    ['com.huawei.wiseplay', 'Wiseplay'],
    ['org.w3.clearkey', 'Widevine'],
    ['com.example.drm', undefined],
    ['', undefined],
  ])('%s -> %s', (keySystem, drmType) => {
    expect(drmTypeFor(keySystem)).toBe(drmType);
  });

  test('overrides win over the built-in map, the first matching prefix first', () => {
    const overrides = {
      'org.w3.clearkey': 'PlayReady',
      'com.microsoft.playready.recommendation': 'Y',
      'com.microsoft.playready': 'X',
    };
    expect(drmTypeFor('org.w3.clearkey', overrides)).toBe('PlayReady');
    expect(drmTypeFor('com.microsoft.playready.recommendation.3000', overrides)).toBe('Y');
    expect(drmTypeFor('com.microsoft.playready.hardware', overrides)).toBe('X');
    expect(drmTypeFor('com.widevine.alpha', overrides)).toBe('Widevine');
    expect(drmTypeFor('com.example.drm', { 'com.example': 'NCG' })).toBe('NCG');
  });
});

describe('parseServiceError', () => {
  const enc = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

  test('keeps an object detail as sent, such as the site refusal code the emulator forwards', () => {
    const detail = { siteErrorCode: '4031', siteErrorMessage: 'Subscription ended' };
    expect(
      parseServiceError(enc({ error_code: 'GATEWAY_DENIED', message: 'm', detail }))?.detail,
    ).toEqual(detail);
  });

  test('reads the emulator body with code, message and detail', () => {
    expect(
      parseServiceError(enc({ error_code: 'TOKEN_EXPIRED', message: 'm', detail: 'd' })),
    ).toEqual({
      errorCode: 'TOKEN_EXPIRED',
      message: 'm',
      detail: 'd',
    });
  });

  test('reads numeric codes and the errorCode spelling', () => {
    expect(parseServiceError(JSON.stringify({ code: 4003, message: 'no' }))).toEqual({
      errorCode: '4003',
      message: 'no',
    });
    expect(parseServiceError(JSON.stringify({ errorCode: 'DENIED' }))).toEqual({
      errorCode: 'DENIED',
      message: '',
    });
  });

  test('reads the service refusal, its numeric spelling and the site refusal nested in 8002', () => {
    expect(parseServiceError(enc({ errorCode: 7011, message: 'expired' }))).toEqual({
      errorCode: '7011',
      message: 'expired',
    });
    const nested = JSON.stringify({ ERROR: 4031, MESSAGE: 'Subscription ended' });
    expect(parseServiceError(enc({ errorCode: '8002', message: nested }))).toEqual({
      errorCode: '8002',
      message: nested,
      siteErrorCode: '4031',
      siteErrorMessage: 'Subscription ended',
    });
    expect(parseServiceError(enc({ errorCode: '8002', message: '{not json' }))).toEqual({
      errorCode: '8002',
      message: '{not json',
    });
  });

  test('a body with errorCode is a refusal even when it also holds a license', () => {
    expect(
      parseServiceError(enc({ license: '0a0b', device_info: {}, errorCode: '7011', message: 'x' })),
    ).toEqual({ errorCode: '7011', message: 'x' });
  });

  test("a token builder's error (error_code, error_message) is not a refusal of the service", () => {
    expect(
      parseServiceError(enc({ error_code: '1011', error_message: 'site key too short' })),
    ).toBeNull();
  });

  test.each([
    ['a json-format license', { license: '0a0b', device_info: {} }],
    ['a ClearKey license', { keys: [], type: 'temporary', error_code: 'X' }],
    ['a FairPlay JSON CKC', { ckc: 'AAAA' }],
    ['a success code', { error_code: '0000', message: 'ok' }],
    ['JSON without a code', { message: 'hello' }],
  ])('is null for %s', (_, body) => {
    expect(parseServiceError(enc(body))).toBeNull();
  });

  test('is null for binary licenses, text and broken JSON', () => {
    expect(parseServiceError(new Uint8Array([0x08, 0x02, 0x12]))).toBeNull();
    expect(parseServiceError('<soap:Envelope/>')).toBeNull();
    expect(parseServiceError('{"error_code":')).toBeNull();
    expect(parseServiceError(null)).toBeNull();
  });
});
