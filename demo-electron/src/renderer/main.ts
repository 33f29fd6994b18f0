import type { FlowEvent } from '@multidrm/emulator';
import type { DemoError, PlayPlan, Setup } from '../shared/contract.ts';
import { FAULT_MENU } from '../shared/faults.ts';
import { demoApi } from './api-client.ts';
import { byId, readPlayRequest, readRealService, syncTimeRule } from './controls.ts';
import { setUpConsoleTab } from './console-tab.ts';
import { describeFailure } from './error-help.ts';
import { emulatorStep } from './flow-steps.ts';
import { startSession, type PlaySession } from './player-session.ts';
import { PLAYER_NAMES, PLAYER_NOTES } from './players/index.ts';
import { followProxyLog } from './proxy-log.ts';
import { createScreens } from './screens.ts';
import { createTimeline } from './timeline.ts';

const FLOW_EVENTS: FlowEvent['type'][] = [
  'license-request',
  'token-checked',
  'callback-sent',
  'callback-answered',
  'license-issued',
  'license-denied',
  'fault-injected',
];
const MODE_NOTES = {
  token: 'The site signs a license token; the license service checks it alone.',
  'gateway-json':
    "The player sends custom data; the license service calls the site's gateway (JSON).",
  'gateway-xml': "As gateway JSON, with the old specification's XML answer.",
  proxy:
    "The player asks the site's license proxy; the site decides from its session, makes the token and forwards the request to the license service. No token in the browser.",
};
const MODE_NAMES = {
  token: 'token',
  'gateway-json': 'gateway JSON',
  'gateway-xml': 'gateway XML',
  proxy: 'license proxy',
};

const api = demoApi();
const videoSlot = byId('video-slot');
// Never played: each play gets a copy of it, as players leave state on theirs (video.js even
// removes it when disposed).
const blankVideo = byId<HTMLVideoElement>('video').cloneNode(false) as HTMLVideoElement;
const playButton = byId<HTMLButtonElement>('play');
const status = byId('status');
const timeline = createTimeline(byId<HTMLOListElement>('timeline'));
let session: PlaySession | undefined;
let running = false;
let attempt = 0;

function setState(state: 'idle' | 'loading' | 'playing' | 'error', text: string): void {
  document.body.dataset['state'] = state;
  status.textContent = text;
}

function showError(error: DemoError | undefined): void {
  const panel = byId('error');
  panel.hidden = error === undefined;
  if (error === undefined) return;
  panel.dataset['code'] = error.code;
  byId('error-code').textContent = error.code;
  byId('error-message').textContent = error.message;
  byId('error-fix').textContent = error.fix;
  byId('error-explanation').hidden = error.explanation === undefined;
  byId('error-explanation-text').textContent = error.explanation ?? '';
}

function showPlan(plan: PlayPlan | undefined): void {
  const rows: [string, string][] = plan
    ? [
        ['site ID', plan.siteId],
        ...(plan.licenseProxyUrl
          ? ([
              ['license proxy', `${plan.licenseProxyUrl} (the site's; no token in the browser)`],
              ['proxy forwards to', `${plan.licenseUrl} (${plan.target})`],
              ['header', `${plan.header} (set by the proxy)`],
            ] as [string, string][])
          : ([
              [
                plan.tokenUrl ? 'token from' : 'custom data from',
                plan.tokenUrl ?? plan.customDataUrl ?? '',
              ],
              ['license server', `${plan.licenseUrl} (${plan.target})`],
              ['header', plan.header],
            ] as [string, string][])),
        ['key system', `${plan.keySystem} (as drm_type Widevine)`],
        ['player', PLAYER_NAMES[plan.player]],
        ['manifest', plan.manifestUrl],
      ]
    : [['status', 'refused before playback: nothing was sent']];
  byId('plan').replaceChildren(
    ...rows.flatMap(([name, value]) => {
      const dt = document.createElement('dt');
      dt.textContent = name;
      const dd = document.createElement('dd');
      dd.textContent = value;
      return [dt, dd];
    }),
  );
}

function fill(setup: Setup): void {
  byId('shell').textContent = setup.shell === 'electron' ? 'Electron' : 'browser (demo:web)';
  byId('users').replaceChildren(
    ...setup.users.map((user) => {
      const option = document.createElement('option');
      option.value = user.id;
      option.label = user.note;
      return option;
    }),
  );
  const content = byId<HTMLSelectElement>('content');
  content.replaceChildren(...setup.contents.map((entry) => new Option(entry.title, entry.cid)));
  const note = () => {
    byId('content-note').textContent =
      setup.contents.find((entry) => entry.cid === content.value)?.note ?? '';
  };
  content.addEventListener('change', note);
  note();
  byId<HTMLSelectElement>('fault').replaceChildren(
    new Option('none', ''),
    ...Object.entries(FAULT_MENU).map(([name, entry]) => new Option(entry.label, name)),
  );
  const real = setup.realService;
  byId<HTMLInputElement>('real-enabled').checked = real.enabled;
  byId<HTMLInputElement>('real-url').value = real.licenseUrl;
  byId<HTMLInputElement>('real-site').value = real.siteId;
  byId<HTMLInputElement>('real-header').value = real.header;
  showRealStatus(real.siteKeySet, real.accessKeySet);
}

function showRealStatus(siteKeySet: boolean, accessKeySet: boolean): void {
  byId('real-status').textContent =
    `Site key ${siteKeySet ? 'set' : 'not set'} · access key ${accessKeySet ? 'set' : 'not set'} (held by the main process).`;
}

function listenToEmulator(eventsUrl: string): void {
  const source = new EventSource(eventsUrl);
  for (const type of FLOW_EVENTS) {
    source.addEventListener(type, (message) => {
      if (!running && !screens.active) return;
      const event = JSON.parse((message as MessageEvent<string>).data) as FlowEvent;
      // The stream replays recent history on connect; only this run's events belong here.
      if (Date.parse(event.at) < timeline.origin - 5) return;
      timeline.add(emulatorStep(event));
    });
  }
}

async function play(): Promise<void> {
  const run = ++attempt;
  const request = readPlayRequest();
  playButton.disabled = true;
  // One thing at a time: the page's own play ends the screens.
  await screens.closeAll();
  showError(undefined);
  const started = Date.now();
  timeline.reset(started);
  running = true;
  timeline.add({
    key: 'play',
    lane: 'player',
    at: started,
    what: 'Play pressed',
    detail: `${MODE_NAMES[request.mode]} mode · ${PLAYER_NAMES[request.player]} · user ${request.userId} · cid ${request.cid}`,
    status: 'info',
  });
  setState('loading', 'Asking the site and the license service…');
  try {
    await session?.destroy();
    session = undefined;
    const video = freshVideo();
    const prepared = await api.preparePlay(request);
    if (!prepared.ok) {
      showPlan(undefined);
      return fail(prepared.error);
    }
    const plan: PlayPlan = prepared.value;
    showPlan(plan);
    // The site's proxy is a hop of its own: its events come from the site, not the emulator.
    if (plan.licenseProxyUrl) {
      void followProxyLog(() => run === attempt, timeline.origin - 5, timeline.add);
    }
    let failedOnce = false;
    session = startSession(video, plan, {
      step: (step) => run === attempt && timeline.add(step),
      firstFrame: (at) => {
        if (run !== attempt) return;
        timeline.add({
          key: 'first-frame',
          lane: 'player',
          at,
          what: 'First decrypted frame on screen',
          status: 'ok',
        });
      },
      failed: (error) => {
        if (run !== attempt || failedOnce) return;
        failedOnce = true;
        fail(describeFailure(error, plan.player));
      },
    });
    await session.loaded;
    if (run !== attempt) return;
    setState(
      'playing',
      `Playing ${plan.cid} with ${PLAYER_NAMES[plan.player]}, decrypted (${MODE_NAMES[plan.mode]} mode, ${plan.target}).`,
    );
  } catch (error) {
    if (run === attempt && document.body.dataset['state'] !== 'error')
      fail(describeFailure(error, request.player));
  } finally {
    if (run === attempt) playButton.disabled = false;
  }
}

/** A new <video> in the page, in place of the last play's. */
function freshVideo(): HTMLVideoElement {
  const video = blankVideo.cloneNode(false) as HTMLVideoElement;
  videoSlot.replaceChildren(video);
  return video;
}

const screens = createScreens({
  api,
  list: byId('screens-list'),
  open: byId<HTMLButtonElement>('screen-open'),
  interval: byId<HTMLInputElement>('screens-interval'),
  choice: () => {
    const { player, userId, cid } = readPlayRequest();
    return { player, userId, cid };
  },
  async starting(at, what) {
    // The screens take the page over: its own play ends, the timeline starts afresh.
    attempt++;
    running = false;
    await session?.destroy();
    session = undefined;
    freshVideo();
    showError(undefined);
    const dt = document.createElement('dt');
    dt.textContent = 'screens';
    const dd = document.createElement('dd');
    dd.textContent = 'each screen below has its own player, in token mode, renewing its license';
    byId('plan').replaceChildren(dt, dd);
    timeline.reset(at);
    timeline.add({ key: 'screens', lane: 'player', at, what, status: 'info' });
    setState('idle', 'Screens open below; press Play to play here instead.');
  },
  step: (step) => timeline.add(step),
});

function fail(error: DemoError): void {
  showError(error);
  setState('error', `Stopped: ${error.code}.`);
}

async function saveRealService(): Promise<void> {
  const result = await api.setRealService(readRealService());
  byId<HTMLInputElement>('real-site-key').value = '';
  byId<HTMLInputElement>('real-access-key').value = '';
  if (!result.ok) return showError(result.error);
  showRealStatus(result.value.siteKeySet, result.value.accessKeySet);
}

async function init(): Promise<void> {
  setUpConsoleTab();
  byId<HTMLInputElement>('limit').checked = true;
  byId<HTMLSelectElement>('time-rule').value = 'duration';
  syncTimeRule();
  byId('time-rule').addEventListener('change', syncTimeRule);
  const mode = byId<HTMLSelectElement>('mode');
  const modeNote = () =>
    (byId('mode-note').textContent = MODE_NOTES[mode.value as keyof typeof MODE_NOTES]);
  mode.addEventListener('change', modeNote);
  modeNote();
  const player = byId<HTMLSelectElement>('player');
  const playerNote = () =>
    (byId('player-note').textContent = PLAYER_NOTES[player.value as keyof typeof PLAYER_NOTES]);
  player.addEventListener('change', playerNote);
  playerNote();
  playButton.addEventListener('click', () => void play());
  byId('real-save').addEventListener('click', () => void saveRealService());
  byId('real-form').addEventListener('submit', (event) => event.preventDefault());
  const setup = await api.getSetup();
  if (!setup.ok) return fail(setup.error);
  fill(setup.value);
  listenToEmulator(setup.value.eventsUrl);
  playButton.disabled = false;
  screens.ready();
  setState('idle', 'Ready. Press Play.');
}

void init();
