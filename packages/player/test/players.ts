// The players the adapters are tested with (this package's devDependencies), for the real-browser
// test page in test/e2e/adapters: it imports them from here, where they resolve.
import shakaModule from 'shaka-player';
import type Shaka from 'shaka-player';
import Hls from 'hls.js';
import * as dashjs from 'dashjs';
import videojsModule from 'video.js';
import 'videojs-contrib-eme';

// The CommonJS builds' exports objects are the namespaces themselves.
export const shaka = shakaModule as unknown as typeof Shaka.default;
export const videojs = videojsModule as unknown as typeof videojsModule.default;
export { Hls, dashjs };
