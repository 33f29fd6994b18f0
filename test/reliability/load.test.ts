// A smaller run of the load benchmark (test/bench/reliability-load.bench.ts): site-kit's gateway and
// token handlers on node:http at concurrency 64, every answer decrypted or verified against its own
// request. Figures (latency, memory) are the benchmark's; this checks only correctness.
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runLoad } from '../../packages/site-kit/bench/load.ts';
import { checkAnswer, loadRequest, loadSite, startLoadSite } from './support/load-site.ts';

const COUNT = 2_000;
let server: Server;
let port: number;

beforeAll(async () => {
  ({ server, port } = await startLoadSite());
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('under concurrent load, every answer is right and belongs to its request', () => {
  test.each(['gateway', 'token'] as const)(
    `${COUNT} %s requests at concurrency 64: no error, every answer checked`,
    async (kind) => {
      const figures = await loadSite(port, kind, { count: COUNT, concurrency: 64 });
      expect(figures.problems).toEqual([]);
      expect(figures).toMatchObject({ requests: COUNT, errors: 0, checked: COUNT, wrong: 0 });
    },
    30_000,
  );
});

describe('the load checks catch a wrong answer', () => {
  // Answers of other requests, collected from the server, swapped in: the checks must refuse them.
  test.each(['gateway', 'token'] as const)('a %s answer given to another request', async (kind) => {
    const answers: string[] = [];
    await runLoad({
      port,
      concurrency: 2,
      keepBodies: true,
      next: (i) => (i < 2 ? loadRequest(kind, 100 + i) : undefined),
      onAnswer: ({ index, body }) => (answers[index] = body),
    });
    expect(checkAnswer(kind, 100, answers[0] ?? '')).toBeUndefined();
    expect(checkAnswer(kind, 100, answers[1] ?? '')).toBeDefined();
    expect(checkAnswer(kind, 101, answers[0] ?? '')).toBeDefined();
    expect(checkAnswer(kind, 100, 'garbage')).toBeDefined();
  });
});
