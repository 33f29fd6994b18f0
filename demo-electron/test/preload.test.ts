import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, test, vi } from 'vitest';
import { buildElectron } from '../scripts/build-electron.ts';
import { BRIDGE_NAME, CALLS } from '../src/shared/contract.ts';

// The preload runs inside Electron's sandbox, where only `electron` can be required: the one place
// where a module mock stands in for Electron.
const fake = vi.hoisted(() => ({
  exposed: [] as [string, Record<string, unknown>][],
  invoked: [] as unknown[][],
}));
vi.mock('electron', () => ({
  contextBridge: {
    exposeInMainWorld: (name: string, api: Record<string, unknown>) =>
      fake.exposed.push([name, api]),
  },
  ipcRenderer: {
    invoke: async (...args: unknown[]) => {
      fake.invoked.push(args);
      return { ok: true, value: null };
    },
  },
}));

describe('the preload', () => {
  beforeAll(async () => {
    await import('../src/preload/index.ts');
  });

  test('exposes one object with the three named functions of the contract, nothing else', () => {
    expect(fake.exposed).toHaveLength(1);
    const [name, api] = fake.exposed[0]!;
    expect(name).toBe(BRIDGE_NAME);
    expect(Object.keys(api).sort()).toEqual(['getSetup', 'preparePlay', 'setRealService']);
    for (const fn of Object.values(api)) expect(typeof fn).toBe('function');
  });

  test("each function invokes its own channel with the caller's argument only", async () => {
    const api = fake.exposed[0]![1] as Record<string, (...args: unknown[]) => Promise<unknown>>;
    await api['getSetup']!('ignored');
    await api['preparePlay']!({ mode: 'token' }, 'surplus');
    await api['setRealService']!({ enabled: false });
    expect(fake.invoked).toEqual([
      [CALLS.getSetup.channel],
      [CALLS.preparePlay.channel, { mode: 'token' }],
      [CALLS.setRealService.channel, { enabled: false }],
    ]);
  });

  test('is bundled into one CommonJS file that requires nothing but electron', async () => {
    await buildElectron();
    const bundle = await readFile(
      fileURLToPath(new URL('../dist/preload/index.cjs', import.meta.url)),
      'utf8',
    );
    const required = [...bundle.matchAll(/require\(["']([^"']+)["']\)/g)].map((m) => m[1]);
    expect(required).toEqual(['electron']);
    expect(bundle).not.toMatch(/\bimport\s/);
  });
});
