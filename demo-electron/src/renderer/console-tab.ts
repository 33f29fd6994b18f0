import { mountConsole } from '@multidrm/console';

// The browser console (packages/console) as the demo's second tab: the same page module, mounted
// on first view. Its probe answers for this renderer, so in Electron it shows what this build of
// Electron can play.

export function setUpConsoleTab(): void {
  const demo = document.querySelector<HTMLElement>('main.grid');
  const slot = document.getElementById('console');
  const buttons = [...document.querySelectorAll<HTMLButtonElement>('[data-view]')];
  if (demo === null || slot === null) return;
  let mounted = false;
  for (const button of buttons) {
    button.addEventListener('click', () => {
      const view = button.dataset['view'];
      if (view === 'console' && !mounted) {
        mountConsole(slot);
        mounted = true;
      }
      demo.hidden = view !== 'demo';
      slot.hidden = view !== 'console';
      for (const b of buttons) b.setAttribute('aria-selected', String(b === button));
    });
  }
}
