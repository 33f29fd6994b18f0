// The load generator shared by the HTTP benchmarks and the reliability load test: a keep-alive agent
// and a fixed number of request loops, each sending its next request as soon as the previous one is
// answered, so the server always has `concurrency` requests in flight.
import { Agent, request } from 'node:http';

export interface LoadRequest {
  path: string;
  body: string;
  contentType: string;
}

export interface LoadAnswer {
  /** Index of the request, in the order the loops took them. */
  index: number;
  status: number;
  /** The answer's body; empty unless `keepBodies` is set. */
  body: string;
  ms: number;
}

export interface LoadOptions {
  port: number;
  concurrency: number;
  /** The request with this index, or undefined to stop (its loop ends). */
  next: (index: number) => LoadRequest | undefined;
  /** Called for every answer that arrived; a network error goes to `onError` instead. */
  onAnswer?: (answer: LoadAnswer) => void;
  onError?: (index: number, error: Error) => void;
  keepBodies?: boolean;
}

/** Sends requests until `next` says stop; resolves when every loop has ended. */
export async function runLoad(options: LoadOptions): Promise<void> {
  const { port, concurrency, next, onAnswer, onError, keepBodies = false } = options;
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  let taken = 0;
  const one = (index: number, spec: LoadRequest) =>
    new Promise<void>((resolve) => {
      const started = performance.now();
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path: spec.path,
          method: 'POST',
          agent,
          headers: {
            'content-type': spec.contentType,
            'content-length': Buffer.byteLength(spec.body),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => {
            if (keepBodies) chunks.push(chunk);
          });
          res.on('end', () => {
            onAnswer?.({
              index,
              status: res.statusCode ?? 0,
              body: keepBodies ? Buffer.concat(chunks).toString('utf8') : '',
              ms: performance.now() - started,
            });
            resolve();
          });
          res.on('error', (error) => {
            onError?.(index, error);
            resolve();
          });
        },
      );
      req.on('error', (error) => {
        onError?.(index, error);
        resolve();
      });
      req.end(spec.body);
    });
  const loop = async () => {
    for (;;) {
      const index = taken++;
      const spec = next(index);
      if (spec === undefined) return;
      await one(index, spec);
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, loop));
  } finally {
    agent.destroy();
  }
}

/** The value at quantile `q` (0..1) of ascending `sorted`. */
export function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}
