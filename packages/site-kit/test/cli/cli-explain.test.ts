import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.ts';

describe('multidrm explain', () => {
  it('explains a 6003: the stream limit, how streams count, and what the viewer, site and app do', async () => {
    const r = await cli(['explain', '6003']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^6003 {2}concurrent stream limit reached \(STREAM_LIMIT_REACHED\)\n/);
    expect(r.stdout).toMatch(/the project's own code: the service's public table has none/);
    expect(r.stdout).toContain('\nWhat it means:\n');
    expect(r.stdout).toMatch(/already has as many streams as the token's "max_stream_per_user"/);
    expect(r.stdout).toMatch(/stops counting\s+after that interval plus a grace/);
    expect(r.stdout).toContain('\nHow to fix it:\n');
    expect(r.stdout).toMatch(/stop playback on another screen/);
    expect(r.stdout).toMatch(/raise playback_policy\.max_stream_per_user/);
    expect(r.stdout).toMatch(/x-renewal-interval/);
    expect(r.stdout).toMatch(/"too many screens"/);
  });

  it('the policy it suggests makes a token', async () => {
    const r = await cli(['explain', '6003']);
    const policy = /--policy '([^']+)'/.exec(r.stdout)?.[1];
    expect(policy).toBeDefined();
    const made = await cli(['token', 'create', '--cid', 'movie', '--policy', policy as string], {
      env: {
        MULTIDRM_SITE_ID: 'TUTO',
        MULTIDRM_SITE_KEY: 'lU5D8s3PWoLls3PWFWkClULlFWk5D8oC',
        MULTIDRM_ACCESS_KEY: 'LT2FVJDp2Xr018zf4Di6lzvNOv3DKP20',
      },
    });
    expect(made).toMatchObject({ code: 0, stderr: '' });
  });

  it('takes the refusal answer as the player got it, errorCode a string or a number, or from stdin', async () => {
    const byCode = await cli(['explain', '6003']);
    const asText = await cli([
      'explain',
      '{"errorCode":"6003","message":"Concurrent stream limit reached"}',
    ]);
    const asNumber = await cli(['explain', '{"errorCode":6003}']);
    const piped = await cli(['explain', '-'], { stdin: '{"errorCode":"6003"}\n' });
    for (const r of [asText, asNumber, piped]) expect(r).toEqual(byCode);
  });

  it('explains 7011 and 8711, the other refusals of a renewal', async () => {
    const expired = await cli(['explain', '7011']);
    expect(expired.code).toBe(0);
    expect(expired.stdout).toMatch(/^7011 {2}token expired/);
    expect(expired.stdout).toMatch(/fresh token/);
    const over = await cli(['explain', '8711']);
    expect(over.stdout).toMatch(/^8711 {2}playback period over/);
  });

  it('says which codes it knows for another code, and what an answer must look like', async () => {
    expect(await cli(['explain', '1234'])).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'error INVALID_INPUT: no explanation for code "1234": multidrm explains 6003, 7011, 8711 (the emulator\'s README lists every code).\n',
    });
    expect(await cli(['explain', '{"message":"no code"}'])).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'error INVALID_INPUT: the refusal answer must be JSON with an errorCode, as the license service sends it: {"errorCode":"6003","message":"…"}.\n',
    });
    const none = await cli(['explain']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^error USAGE: give exactly one CODE \(6003, 7011, 8711\)/);
  });

  it('is listed in the help, with its own', async () => {
    expect((await cli(['--help'])).stdout).toMatch(
      /multidrm explain +what a license service refusal code means/,
    );
    const help = await cli(['explain', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: multidrm explain CODE/);
    expect((await cli(['explian', '6003'])).stderr).toMatch(/did you mean "explain"\?/);
  });
});
