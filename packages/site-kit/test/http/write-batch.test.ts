import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createWriteBatch } from '../../src/node.ts';
import { createTurnQueue } from '../../src/http/write-batch.ts';

describe('createWriteBatch', () => {
  it('runs the writes of one turn together, in order, after the turn', async () => {
    const batch = createWriteBatch();
    const ran: string[] = [];
    const done = [batch(() => ran.push('a')), batch(() => ran.push('b'))];
    queueMicrotask(() => ran.push('microtask'));
    // Still inside the turn: nothing written yet, whatever else the turn does.
    await Promise.resolve();
    expect(ran).toEqual(['microtask']);
    await Promise.all(done);
    expect(ran).toEqual(['microtask', 'a', 'b']);
  });

  it('fails a write that throws alone: the others of its batch are written', async () => {
    const batch = createWriteBatch();
    const ran: string[] = [];
    const broken = batch(() => {
      throw new Error('invalid header');
    });
    const fine = batch(() => ran.push('fine'));
    await expect(broken).rejects.toThrow('invalid header');
    await fine;
    expect(ran).toEqual(['fine']);
  });

  it('starts a new batch after a flush', async () => {
    const batch = createWriteBatch();
    const ran: number[] = [];
    await batch(() => ran.push(1));
    await batch(() => ran.push(2));
    expect(ran).toEqual([1, 2]);
  });
});

describe('createTurnQueue', () => {
  it('runs what one turn queued together, in order, after the turn, then starts anew', async () => {
    const later = createTurnQueue();
    const ran: string[] = [];
    later(() => ran.push('a'));
    later(() => ran.push('b'));
    await Promise.resolve();
    expect(ran).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(ran).toEqual(['a', 'b']);
    later(() => ran.push('c'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(ran).toEqual(['a', 'b', 'c']);
  });
});

describe('a server writing through a batch', () => {
  let server: Server | undefined;
  afterEach(() => server?.close());

  it('answers each of many concurrent requests with its own answer', async () => {
    const batch = createWriteBatch();
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        void batch(() => {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.end(req.url);
        });
      });
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const get = (path: string) =>
      new Promise<string>((resolve, reject) => {
        request({ port, host: '127.0.0.1', path, method: 'POST' }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve(text));
        })
          .on('error', reject)
          .end('body');
      });
    const paths = Array.from({ length: 64 }, (_, i) => `/${i}`);
    expect(await Promise.all(paths.map(get))).toEqual(paths);
  });
});
