import type { DemoApi, DemoError, PlayRequest } from '../shared/contract.ts';
import { SCREENS, STREAM_GRACE_SECONDS } from '../shared/contract.ts';
import { describeFailure } from './error-help.ts';
import type { Step } from './flow-steps.ts';
import { startSession, type PlaySession } from './player-session.ts';
import { PLAYER_NAMES } from './players/index.ts';

/**
 * The screens control: up to three players of one user, whom the site allows two concurrent streams
 * (v2 `max_stream_per_user`), each renewing its license at the interval the token endpoint answers
 * (`x-renewal-interval`), every time with a fresh token. The third is refused with the service's
 * 6003; closing a screen frees its slot once it has not renewed for the interval plus the grace.
 */
export interface ScreensOptions {
  api: DemoApi;
  /** The list the screens go in, the open button and the interval field. */
  list: HTMLElement;
  open: HTMLButtonElement;
  interval: HTMLInputElement;
  /** The player, user and title picked in the page's controls. */
  choice(): Pick<PlayRequest, 'player' | 'userId' | 'cid'>;
  /** The first screen opens: the page ends its own play and starts the timeline. */
  starting(at: number, what: string): Promise<void>;
  step(step: Step): void;
}

interface Screen {
  readonly n: number;
  readonly item: HTMLLIElement;
  video: HTMLVideoElement;
  readonly status: HTMLElement;
  readonly retry: HTMLButtonElement;
  session: PlaySession | undefined;
  /** Bumped on each start and on close: callbacks of an older start are dropped. */
  run: number;
  renewals: number;
}

/** A screen's state, as `data-state` on its item: the tests' hook and the style's. */
type ScreenState = 'loading' | 'playing' | 'refused';

export function createScreens(options: ScreensOptions) {
  const screens = new Map<number, Screen>();
  const blankVideo = document.createElement('video');
  blankVideo.muted = true;
  blankVideo.playsInline = true;

  const setState = (screen: Screen, state: ScreenState, text: string) => {
    screen.item.dataset['state'] = state;
    screen.status.textContent = text;
    screen.retry.hidden = state !== 'refused';
  };
  const syncOpen = () => {
    options.open.disabled = screens.size >= SCREENS.count;
    // While screens are open they are the page's players: its own video and plan step aside.
    document.body.toggleAttribute('data-screens', screens.size > 0);
  };
  const label = (screen: Screen, step: Step): Step => ({
    ...step,
    what: `Screen ${screen.n} · ${step.what}`,
    screen: screen.n,
  });

  async function start(screen: Screen): Promise<void> {
    const run = ++screen.run;
    delete screen.item.dataset['code'];
    setState(screen, 'loading', 'Asking the site and the license service…');
    await screen.session?.destroy();
    screen.session = undefined;
    screen.renewals = 0;
    const video = blankVideo.cloneNode(false) as HTMLVideoElement;
    screen.video.replaceWith(video);
    screen.video = video;
    const seconds = Math.max(
      1,
      Math.round(Number(options.interval.value) || SCREENS.renewalSeconds),
    );
    const prepared = await options.api.preparePlay({
      mode: 'token',
      ...options.choice(),
      policy: {
        limit: false,
        timeRule: 'none',
        persistent: false,
        hdcp: null,
        securityLevel: null,
        externalKey: false,
      },
      streams: { maxPerUser: SCREENS.maxPerUser, renewalSeconds: seconds },
    });
    if (run !== screen.run) return;
    if (!prepared.ok) return refused(screen, prepared.error);
    const plan = prepared.value;
    let failedOnce = false;
    screen.session = startSession(video, plan, {
      step: (step) => run === screen.run && options.step(label(screen, step)),
      firstFrame: () => undefined,
      failed: (error) => {
        if (run !== screen.run || failedOnce) return;
        failedOnce = true;
        refused(screen, describeFailure(error, plan.player));
      },
      renewed: (event) => {
        if (run !== screen.run) return;
        screen.renewals++;
        options.step(
          label(screen, {
            key: 'license-renewed',
            lane: 'player',
            at: Date.now(),
            what: `License renewed (${event.method === 'new-session' ? 'a new session' : "the session's renew message"}), with a fresh token`,
            detail: `renewal ${screen.renewals} · ${event.keySystem} as ${event.drmType}`,
            status: 'ok',
          }),
        );
        setState(screen, 'playing', playingText(screen, PLAYER_NAMES[plan.player], seconds));
      },
    });
    try {
      await screen.session.loaded;
      if (run !== screen.run || screen.item.dataset['state'] === 'refused') return;
      setState(screen, 'playing', playingText(screen, PLAYER_NAMES[plan.player], seconds));
    } catch (error) {
      if (run === screen.run && screen.item.dataset['state'] !== 'refused')
        refused(screen, describeFailure(error, plan.player));
    }
  }

  function refused(screen: Screen, error: DemoError): void {
    screen.item.dataset['code'] = error.code;
    const message = error.message.replace(/[.\s]*$/, '');
    setState(screen, 'refused', `Refused: ${error.code} (${message}). ${error.fix}`);
  }

  async function open(): Promise<void> {
    const n = [1, 2, 3].find((candidate) => !screens.has(candidate));
    if (n === undefined) return;
    if (screens.size === 0) {
      const { userId, cid } = options.choice();
      await options.starting(
        Date.now(),
        `Screens: user ${userId}, cid ${cid}, max_stream_per_user ${SCREENS.maxPerUser}, renewal every ${options.interval.value} s (grace ${STREAM_GRACE_SECONDS} s)`,
      );
    }
    const item = document.createElement('li');
    item.className = 'screen';
    item.dataset['testid'] = `screen-${n}`;
    item.dataset['screen'] = String(n);
    const title = document.createElement('strong');
    title.textContent = `Screen ${n}`;
    const video = blankVideo.cloneNode(false) as HTMLVideoElement;
    const status = document.createElement('p');
    status.className = 'screen-status';
    const retry = document.createElement('button');
    retry.type = 'button';
    retry.className = 'secondary';
    retry.textContent = 'Try again';
    retry.dataset['testid'] = `screen-retry-${n}`;
    const close = document.createElement('button');
    close.type = 'button';
    close.className = 'secondary';
    close.textContent = 'Close';
    close.dataset['testid'] = `screen-close-${n}`;
    const buttons = document.createElement('div');
    buttons.className = 'row';
    buttons.append(retry, close);
    item.append(title, video, status, buttons);
    const screen: Screen = {
      n,
      item,
      video,
      status,
      retry,
      session: undefined,
      run: 0,
      renewals: 0,
    };
    screens.set(n, screen);
    retry.addEventListener('click', () => void start(screen));
    close.addEventListener('click', () => void closeScreen(screen));
    // In slot order, whichever slot was free.
    const after = [...options.list.children].find(
      (other) => Number((other as HTMLElement).dataset['screen']) > n,
    );
    options.list.insertBefore(item, after ?? null);
    syncOpen();
    await start(screen);
  }

  async function closeScreen(screen: Screen): Promise<void> {
    screen.run++;
    screens.delete(screen.n);
    screen.item.remove();
    syncOpen();
    const { session } = screen;
    screen.session = undefined;
    options.step(
      label(screen, {
        key: 'screen-closed',
        lane: 'player',
        at: Date.now(),
        what: 'Closed: its player stops renewing',
        detail: `its slot frees ${options.interval.value} s + ${STREAM_GRACE_SECONDS} s after its last license`,
        status: 'info',
      }),
    );
    await session?.destroy();
  }

  options.open.addEventListener('click', () => void open());

  return {
    /** The page has its setup (users, titles): screens may open. */
    ready: syncOpen,
    /** Whether any screen is open (the page's emulator events then belong to the screens). */
    get active() {
      return screens.size > 0;
    },
    /** Closes every screen: the page's own Play takes over. */
    async closeAll(): Promise<void> {
      await Promise.all([...screens.values()].map((screen) => closeScreen(screen)));
    },
  };
}

function playingText(screen: Screen, player: string, seconds: number): string {
  const renewed =
    screen.renewals === 0
      ? 'no renewal yet'
      : `renewed ${screen.renewals} time${screen.renewals === 1 ? '' : 's'}`;
  return `Playing (${player}), decrypted; renews every ${seconds} s with a fresh token: ${renewed}.`;
}
