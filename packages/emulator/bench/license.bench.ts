// License throughput of the emulator in token and gateway mode, against the cost of verifying the
// token alone (site-kit's verifier), measured in the same run.
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
  const post = (url: string, header: string) =>
    fetch(`${url}/license`, {
      method: 'POST',
      headers: { 'x-drm-custom-data': header },
      body,
    }).then(async (r) => {
      if (r.status !== 200) throw new Error(`status ${r.status}`);
      await r.arrayBuffer();
    });

  const results = [
    await rate('site-kit verify only (baseline)', () => verifier.verify(token)),
    await rate('token mode, handler (no sockets)', () =>
      handler(
        new Request('http://e/license', {
          method: 'POST',
          headers: { 'x-drm-custom-data': token },
          body,
        }),
      ).then((r) => r.arrayBuffer()),
    ),
    await rate('token mode, HTTP, one at a time', () => post(emulator.url, token)),
    await rate('gateway mode (JSON), HTTP + callback', () => post(emulator.url, customData)),
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
