// @multidrm/site-kit/cli: what the project's command-line tools share (the emulator's CLI and the
// repository's scripts use it too), so that every one of them suggests the same way.
export { nearest } from './cli/nearest.ts';
