import type { PlayerName } from '../../shared/contract.ts';
import type { AttachPlayer } from './part.ts';

/** Each player's part, loaded when it is first picked: a page that plays with one loads one. */
export const PLAYER_PARTS: Readonly<Record<PlayerName, () => Promise<AttachPlayer>>> = {
  shaka: () => import('./shaka.ts').then((part) => part.attachShaka),
  hls: () => import('./hls.ts').then((part) => part.attachHls),
  dash: () => import('./dash.ts').then((part) => part.attachDash),
  videojs: () => import('./videojs.ts').then((part) => part.attachVideoJs),
};

export const PLAYER_NAMES: Readonly<Record<PlayerName, string>> = {
  shaka: 'Shaka Player',
  hls: 'hls.js',
  dash: 'dash.js',
  videojs: 'video.js',
};

/** What the page says of each player: what it plays, how the adapter hooks in, what it cannot do. */
export const PLAYER_NOTES: Readonly<Record<PlayerName, string>> = {
  shaka:
    "Plays the DASH manifest; @multidrm/player works through Shaka's request and response filters.",
  hls: 'Plays the HLS rendition (fMP4, ClearKey signalled in the playlist); the adapter sends each license request from licenseXhrSetup.',
  dash: "Plays a DASH manifest with ClearKey signalled the DASH-IF way; the adapter sends each license request from dash.js's request filter. dash.js has no FairPlay.",
  videojs:
    'Plays the DASH manifest through VHS with videojs-contrib-eme; the adapter answers its getLicense.',
};
