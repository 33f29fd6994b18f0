// @multidrm/site-kit/node: serves any web-standard handler (site-kit's or your own) on node:http,
// Express or Fastify.
export { toNodeListener, type WebHandler, type NodeListener } from './http/node-listener.ts';
export { createWriteBatch, type WriteBatch } from './http/write-batch.ts';
