// License throughput of the emulator in token and gateway mode, against the cost of verifying the
// token alone (site-kit's verifier), measured in the same run; and the cost of refusing custom data
// whose padding is bad against custom data whose padding checks out but hides no JSON (the two must
// take the same path: no padding oracle, in the answer or in its time).
import { createCipheriv } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createCustomData,
  createGatewayHandler,
  createTokenIssuer,
  createTokenVerifier,
  toNodeListener,
} from '@multidrm/site-kit';
import { createEmulatorHandler, startEmulator } from '../src/index.ts';

const site = { siteId: 'BENCH', siteKey: 'b'.repeat(32), accessKey: 'bench-access' };
const kid = '00112233445566778899aabbccddeeff';
const key = 'ffeeddccbbaa99887766554433221100';
const body = JSON.stringify({ kids: [Buffer.from(kid, 'hex').toString('base64url')] });

async function rate(name: string, run: () => Promise<unknown> | unknown, ms = 1000) {
  for (let i = 0; i < 50; i++) await run(); // warm-up
  let n = 0;
  const start = performance.now();
  while (performance.now() - start < ms) {
    await run();
    n++;
  }
  const perSecond = n / ((performance.now() - start) / 1000);
  return { name, perSecond, usPerOp: 1e6 / perSecond };
}

/** Two cases measured call for call in turn, so that warm-up, GC and load fall on both alike. */
async function interleaved(
  ...cases: [string, () => Promise<unknown>][]
): Promise<{ name: string; perSecond: number; usPerOp: number }[]> {
  const spent = cases.map(() => 0);
  for (let i = 0; i < 200; i++) for (const [, run] of cases) await run(); // warm-up
  const rounds = 3000;
  for (let i = 0; i < rounds; i++) {
    for (const [j, [, run]] of cases.entries()) {
      const start = performance.now();
      await run();
      spent[j] = (spent[j] ?? 0) + performance.now() - start;
    }
  }
  return cases.map(([name], j) => {
    const usPerOp = ((spent[j] ?? 0) * 1000) / rounds;
    return { name, perSecond: 1e6 / usPerOp, usPerOp };
  });
}

export default async function (): Promise<void> {
  const gateway = createServer(
    toNodeListener(
      createGatewayHandler({
        siteKey: site.siteKey,
        authorize: () => ({ allow: true, playback_policy: { limit: false } }),
      }),
    ),
  );
  await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
  const config = {
    sites: [
      { ...site, gatewayUrl: `http://127.0.0.1:${(gateway.address() as AddressInfo).port}/` },
    ],
    keys: { movie: { kid, key } },
  };
  const token = createTokenIssuer(site).issue({ cid: 'movie' });
  const customData = createCustomData({ ...site, drmType: 'Widevine', userId: 'u', cid: 'movie' });
  const verifier = createTokenVerifier(site);
  const handler = createEmulatorHandler(config);
  const emulator = await startEmulator(config);
  // A refusal is HTTP 200 too (the service's dialect): only a body with keys is a license.
  const licensed = async (r: Response) => {
    const answer = (await r.json()) as { keys?: unknown; errorCode?: string };
    if (answer.keys === undefined) throw new Error(`refused: ${answer.errorCode ?? r.status}`);
  };
  const post = (url: string, header: string) =>
    fetch(url, {
      method: 'POST',
      headers: { 'x-drm-custom-data': header },
      body,
    }).then(licensed);

  // Two blocks each: one with bad padding, one with valid padding (0x01) over bytes that are no JSON.
  const opened = (last: number) => {
    const plain = Buffer.alloc(32, 0x41);
    plain[31] = last;
    const cipher = createCipheriv('aes-256-cbc', Buffer.from(site.siteKey), '0123456789abcdef');
    cipher.setAutoPadding(false);
    const data = Buffer.concat([cipher.update(plain), cipher.final()]).toString('base64');
    const envelope = { drm_type: 'Widevine', site_id: site.siteId, data };
    return Buffer.from(JSON.stringify(envelope)).toString('base64');
  };
  const refuse = (header: string) => () =>
    handler(
      new Request('http://e/ri/licenseManager.do', {
        method: 'POST',
        headers: { 'x-drm-custom-data': header },
        body,
      }),
    ).then(async (r) => {
      const answer = (await r.json()) as { errorCode?: string };
      if (answer.errorCode !== '7008') throw new Error(`expected 7008, got ${answer.errorCode}`);
    });

  const results = [
    await rate('site-kit verify only (baseline)', () => verifier.verify(token)),
    await rate('token mode, handler (no sockets)', () =>
      handler(
        new Request('http://e/ri/licenseManager.do', {
          method: 'POST',
          headers: { 'x-drm-custom-data': token },
          body,
        }),
      ).then(licensed),
    ),
    await rate('token mode, HTTP, one at a time', () => post(emulator.licenseUrl, token)),
    await rate('gateway mode (JSON), HTTP + callback', () => post(emulator.licenseUrl, customData)),
    ...(await interleaved(
      ['custom data refused (7008): bad padding', refuse(opened(0x00))],
      ['custom data refused (7008): padding right, no JSON', refuse(opened(0x01))],
    )),
  ];
  await emulator.close();
  await new Promise((resolve) => gateway.close(resolve));

  const base = results[0]?.perSecond ?? 1;
  console.log('| case | licenses/s | µs per license | cost vs. verify only |');
  console.log('| --- | ---: | ---: | ---: |');
  for (const r of results) {
    console.log(
      `| ${r.name} | ${r.perSecond.toFixed(0)} | ${r.usPerOp.toFixed(1)} | ${(base / r.perSecond).toFixed(1)}x |`,
    );
  }
}
