import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDemoStack, type DemoStack } from '../../src/main/stack/start-stack.ts';

export const CONTENT_DIR = fileURLToPath(
  new URL('../../../test/fixtures/content', import.meta.url),
);

/** A stack with a stand-in page (the Node tests need no vite build). */
export async function startTestStack(shell: 'electron' | 'web'): Promise<{
  stack: DemoStack;
  close(): Promise<void>;
}> {
  const rendererDir = await mkdtemp(join(tmpdir(), 'multidrm-demo-renderer-'));
  await writeFile(join(rendererDir, 'index.html'), '<!doctype html><title>multidrm demo</title>');
  const stack = await startDemoStack({ rendererDir, contentDir: CONTENT_DIR, shell });
  return {
    stack,
    async close() {
      await stack.close();
      await rm(rendererDir, { recursive: true, force: true });
    },
  };
}

/**
 * What the demo's page sends with its own requests in the web mode: its Origin and the session
 * cookie it got by opening the printed address (the launch key's trade, see app-guard.ts).
 */
export async function pageHeaders(stack: DemoStack): Promise<Record<string, string>> {
  const launch = await fetch(stack.openUrl, { redirect: 'manual' });
  const cookie = launch.headers.get('set-cookie')?.split(';')[0];
  if (launch.status !== 303 || cookie === undefined) {
    throw new Error(`Opening ${stack.url} with its launch key gave HTTP ${launch.status}.`);
  }
  return { origin: stack.url, cookie };
}
