// Runs a refresh every few seconds while the tab is visible; never two at once.

export function createPoller(task, intervalMs) {
  let timer = null;
  let running = false;
  let queued = false;
  let active = false;

  const visible = () => document.visibilityState === 'visible';

  function schedule() {
    clearTimeout(timer);
    timer = null;
    if (active && visible()) timer = setTimeout(run, intervalMs);
  }

  async function run() {
    if (!active) return;
    if (running) {
      queued = true;
      return;
    }
    running = true;
    clearTimeout(timer);
    try {
      await task();
    } finally {
      running = false;
      if (queued) {
        queued = false;
        run();
      } else {
        schedule();
      }
    }
  }

  // A hidden tab polls nothing; coming back refreshes at once.
  document.addEventListener('visibilitychange', () => {
    if (visible()) run();
    else {
      clearTimeout(timer);
      timer = null;
    }
  });

  return {
    start() {
      active = true;
      run();
    },
    stop() {
      active = false;
      clearTimeout(timer);
      timer = null;
    },
    /** Refreshes now (after the one in flight, if any). */
    now: run,
  };
}
