// Builds everything the Electron app runs: dist/renderer, dist/main, dist/preload.
import { buildElectron } from './build-electron.ts';
import { buildRenderer } from './build-renderer.ts';

await buildRenderer();
await buildElectron();
console.log('Built dist/renderer, dist/main and dist/preload.');
