import { describe, expect, it } from 'vitest';
import { SIGN_COMMAND_VARIABLE, vmpSign, VmpSignError } from '../scripts/vmp-sign.ts';

// The packaging step that VMP-signs a Widevine-enabled build: runs the tool when configured, says
// plainly when it is not, and never lets a failed signature pass as signed.

const mac = { appOutDir: '/tmp/release/mac', electronPlatformName: 'darwin' };

describe('VMP signing after packaging', () => {
  it('without the signing command it signs nothing and says what that means for Widevine', () => {
    const calls: string[] = [];
    const outcome = vmpSign(mac, {}, (command) => {
      calls.push(command);
      return { status: 0 };
    });
    expect(calls).toEqual([]);
    expect(outcome.signed).toBe(false);
    expect(outcome.message).toContain(`SKIPPED, ${SIGN_COMMAND_VARIABLE} is not set`);
    expect(outcome.message).toContain('will refuse its Widevine license requests');
  });

  it('with the command it runs it on the packaged folder', () => {
    const calls: string[][] = [];
    const outcome = vmpSign(
      mac,
      { [SIGN_COMMAND_VARIABLE]: 'python3 -m vmp-tool sign-pkg' },
      (c, a) => {
        calls.push([c, ...a]);
        return { status: 0 };
      },
    );
    expect(calls).toEqual([['python3', '-m', 'vmp-tool', 'sign-pkg', '/tmp/release/mac']]);
    expect(outcome.signed).toBe(true);
  });

  it('a failing tool stops the packaging with a sentence', () => {
    const run = () =>
      vmpSign(mac, { [SIGN_COMMAND_VARIABLE]: 'vmp-tool sign-pkg' }, () => ({ status: 3 }));
    expect(run).toThrow(VmpSignError);
    expect(run).toThrow('VMP signing failed: "vmp-tool" exited with 3.');
  });

  it('Linux has no verified media path: nothing is run, and the log says so', () => {
    const outcome = vmpSign(
      { appOutDir: '/tmp/release/linux', electronPlatformName: 'linux' },
      { [SIGN_COMMAND_VARIABLE]: 'vmp-tool sign-pkg' },
      () => {
        throw new Error('must not run');
      },
    );
    expect(outcome).toMatchObject({ signed: false });
    expect(outcome.message).toContain('macOS and Windows only');
  });
});
