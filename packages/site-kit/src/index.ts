// @multidrm/site-kit on Node, Bun and Deno: everything of the token, gateway, proxy, schemas and node
// entries, the synchronous API on node:crypto and its async twin. Workers and browsers get web/index.ts.
export * from './token.ts';
export * from './gateway.ts';
export * from './proxy.ts';
export * from './schemas.ts';
export * from './node.ts';
export { encrypt, decrypt } from './crypto/aes.ts';
export { encryptAsync, decryptAsync } from './runtime/node-token.ts';
