import type { Step } from './flow-steps.ts';

/** The timeline list: rows sorted by time, each with its offset from Play. */
export function createTimeline(list: HTMLOListElement) {
  let steps: Step[] = [];
  let origin = 0;

  const render = () => {
    const rows = steps.map((step) => {
      const li = document.createElement('li');
      li.dataset['step'] = step.key;
      li.dataset['lane'] = step.lane;
      li.dataset['status'] = step.status;
      if (step.screen !== undefined) li.dataset['screen'] = String(step.screen);
      const at = document.createElement('span');
      at.className = 'at';
      at.textContent = `+${Math.max(0, Math.round(step.at - origin))} ms`;
      const what = document.createElement('span');
      what.className = 'what';
      what.textContent = step.what;
      li.append(at, what);
      if (step.detail) {
        const detail = document.createElement('span');
        detail.className = 'detail';
        detail.textContent = step.detail;
        li.append(detail);
      }
      return li;
    });
    if (rows.length === 0) {
      const empty = document.createElement('li');
      empty.className = 'empty';
      empty.textContent = 'Press Play: each step of the license flow appears here, with its time.';
      rows.push(empty);
    }
    list.replaceChildren(...rows);
  };
  render();

  return {
    /** Starts a new run at `at` (wall-clock ms). */
    reset(at: number) {
      origin = at;
      steps = [];
      render();
    },
    get origin() {
      return origin;
    },
    add(step: Step) {
      steps.push(step);
      // Stable: events of the same millisecond keep their arrival order.
      steps = steps
        .map((s, i) => [s, i] as const)
        .sort((a, b) => a[0].at - b[0].at || a[1] - b[1])
        .map(([s]) => s);
      render();
    },
  };
}

export type Timeline = ReturnType<typeof createTimeline>;
