// `node -r ./test/support/announceSignalHandlers.js …`: writes one line to stderr when the process
// adds its SIGTERM listener, so a test sends TERM only once the process handles it. Node catches
// TERM from its very start (and dies of it until a listener exists), so /proc cannot tell.
// The line is matched by test/runner/supervise.test.ts.
const SIGTERM_HANDLED = 'crondeck-test: SIGTERM handled\n';

process.on('newListener', function announce(event) {
  if (event !== 'SIGTERM') return;
  process.removeListener('newListener', announce);
  process.stderr.write(SIGTERM_HANDLED);
});
