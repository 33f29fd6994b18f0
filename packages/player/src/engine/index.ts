// The player-agnostic engine as one module: what the adapters are built on, and what the engine's
// size budget measures (every module whole). Not a package entry: each adapter's entry exports
// what apps use.
export * from './bytes.ts';
export * from './engine.ts';
export * from './errors.ts';
export * from './events.ts';
export * from './fairplay.ts';
export * from './find-error.ts';
export * from './handle.ts';
export * from './header-check.ts';
export * from './key-systems.ts';
export * from './license-answer.ts';
export * from './license-request.ts';
export * from './options.ts';
export * from './playready.ts';
export * from './proxy.ts';
export * from './retry.ts';
export * from './service-error.ts';
export * from './site-client.ts';
export * from './token-cache.ts';
export * from './session.ts';
export * from './renewal.ts';
export * from './eme-sessions.ts';
