import type { FrontHandler } from './server';

/**
 * Holds the requests that arrive while the service starts (it takes its port before it leads, so
 * that a process that cannot serve fires nothing), and lets them through once it has started, as
 * they would otherwise have waited to connect. Once open, a request goes through in the same turn.
 */
export function startGate() {
  let opened = false;
  let open = () => {};
  const started = new Promise<void>((resolve) => (open = resolve));
  return {
    hold(handler: FrontHandler): FrontHandler {
      return (req, res, toApp) => {
        if (opened) handler(req, res, toApp);
        else void started.then(() => handler(req, res, toApp));
      };
    },
    open() {
      opened = true;
      open();
    },
  };
}
