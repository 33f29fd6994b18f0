// Child-process entry: the load site's server alone in its process, so that its RSS is its own.
// Prints its port; answers every IPC message with its memory after a full GC.
import { getHeapSpaceStatistics } from 'node:v8';
import { startLoadSite } from './load-site.ts';

export interface ServerMemory {
  rss: number;
  /** Committed size of V8's young generation, and live bytes in its old generation. */
  newSpace: number;
  oldUsed: number;
}

const { port } = await startLoadSite();
process.on('message', () => {
  (globalThis as { gc?: () => void }).gc?.();
  const space = (name: string) => getHeapSpaceStatistics().find((s) => s.space_name === name);
  const memory: ServerMemory = {
    rss: process.memoryUsage().rss,
    newSpace: space('new_space')?.space_size ?? NaN,
    oldUsed: space('old_space')?.space_used_size ?? NaN,
  };
  process.send?.(memory);
});
process.on('disconnect', () => process.exit(0));
console.log(port);
