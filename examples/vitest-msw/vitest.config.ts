import { defineConfig } from 'vitest/config';

// The player needs a DOM (its token client and Shaka's networking engine); msw/node answers the
// requests of happy-dom's fetch and XMLHttpRequest.
export default defineConfig({ test: { environment: 'happy-dom' } });
