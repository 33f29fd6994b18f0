// `pnpm demo:web`: the demo stack and the renderer page, in any browser, at http://127.0.0.1:PORT.
import { demoPaths, startDemoStack } from '../src/main/stack/start-stack.ts';
import { buildRenderer, DEMO_ROOT } from './build-renderer.ts';

const port = Number(process.env['PORT'] ?? 0);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`PORT must be a port number from 0 to 65535 (0 picks a free one).`);
  process.exit(2);
}

if (process.argv.includes('--no-build'))
  console.log('Using the renderer already in dist/renderer.');
else await buildRenderer();

try {
  const stack = await startDemoStack({ ...demoPaths(DEMO_ROOT), shell: 'web', port });
  // The address carries this run's launch key: only a browser given it gets the page and tokens.
  console.log(`multidrm demo: open ${stack.openUrl}`);
  console.log(
    `  license service emulator ${stack.emulatorUrl}  (flow events: ${stack.emulatorUrl}/events)`,
  );
  console.log(`  sample content           ${stack.contentUrl}/manifest.mpd`);
  console.log('Press Ctrl+C to stop.');
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      void stack.close().then(() => process.exit(0));
    });
  }
} catch (error) {
  console.error(
    `The demo could not start: ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exit(1);
}
