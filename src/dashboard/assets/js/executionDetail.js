// One execution: what ran, how it ended, and its full stdout and stderr as text.

import { api } from './api.js';
import { h, replaceChildren } from './dom.js';
import { formatBytes, formatDateTime, formatDuration, formatRelative, plural } from './format.js';
import { statusBadge, toast } from './ui.js';
import { executionsHash } from './executions.js';
import { triggerText } from './trigger.js';

export function createExecutionDetailView(section) {
  let currentId = null;
  let loadedId = null;
  /** What the page shows of the loaded execution, to re-render only when something changed. */
  let renderedKey = null;
  /** Whether the loaded execution may still change: a running one is read again on every poll. */
  let settled = false;
  let backHash = '#/executions';

  function renderError(message) {
    replaceChildren(
      section,
      backLink(),
      h('h1', { id: 'execution-title', tabindex: -1 }, `Execution ${currentId}`),
      h(
        'div',
        { class: 'empty' },
        h('p', { class: 'empty-title' }, 'Could not load this execution'),
        h('p', {}, message),
      ),
    );
  }

  function backLink() {
    return h('a', { class: 'back', href: backHash }, '← Back to executions');
  }

  function render(execution) {
    const key = JSON.stringify(execution);
    if (key === renderedKey) return;
    renderedKey = key;
    // Re-rendering replaces every node: a keyboard user inside the page starts again at its title.
    const hadFocus = section.contains(document.activeElement);
    const running = execution.status === 'running';
    const failed = execution.status !== 'success';
    const outputs = [
      outputPanel('stdout', 'Standard output (stdout)', execution.stdout, execution),
      outputPanel('stderr', 'Standard error (stderr)', execution.stderr, execution),
    ];
    // When something went wrong the reason is usually in stderr: show it first.
    if (failed && execution.stderr) outputs.reverse();

    replaceChildren(
      section,
      backLink(),
      h(
        'div',
        { class: 'view-head detail-head' },
        h(
          'h1',
          { id: 'execution-title', tabindex: -1 },
          h('span', {}, execution.jobName),
          h('span', { class: 'muted title-suffix' }, ` · execution #${execution.id}`),
        ),
        statusBadge(execution.status),
      ),
      h(
        'dl',
        { class: 'facts' },
        fact('Job', h('a', { href: executionsHash({ jobId: String(execution.jobId) }) }, execution.jobName)),
        // Whatever started it, and for which slot: a backfill of last week is not last night's run.
        fact(
          'Trigger',
          h(
            'span',
            { class: 'trigger-tag', dataset: { trigger: execution.trigger ?? 'manual' } },
            triggerText(execution),
          ),
          execution.scheduledAt
            ? [
                ' · slot ',
                h('time', { datetime: execution.scheduledAt }, formatDateTime(execution.scheduledAt)),
              ]
            : null,
        ),
        // Who started it by hand (Kubernetes mode), as the cluster names them.
        execution.triggeredBy ? fact('Started by', execution.triggeredBy) : null,
        fact(
          'Started',
          h('time', { datetime: execution.startedAt }, formatDateTime(execution.startedAt)),
          h('span', { class: 'muted small' }, ` (${formatRelative(execution.startedAt)})`),
        ),
        fact(
          'Finished',
          h('time', { datetime: execution.finishedAt ?? '' }, formatDateTime(execution.finishedAt)),
        ),
        fact('Duration', formatDuration(execution.durationMs)),
        fact(
          'Exit code',
          h('span', { class: execution.exitCode ? 'num nonzero' : 'num' }, String(execution.exitCode ?? '—')),
        ),
        fact('Attempt', String(execution.attempt)),
        // Why it ended so (OOMKilled, SIGKILL, Timeout...), when there is more to say than the exit code.
        execution.reason
          ? h(
              'div',
              { class: 'fact fact-reason' },
              h('dt', {}, 'Reason'),
              h(
                'dd',
                {},
                h('code', {}, execution.reason),
                execution.reasonMessage
                  ? h('span', { class: 'reason-message' }, ` ${execution.reasonMessage}`)
                  : null,
              ),
            )
          : null,
      ),
      // Output is stored when an attempt ends; until then there is none to show, and two empty
      // panels would say the run printed nothing.
      running
        ? h('p', { class: 'muted running-note' }, 'Still running: its output is shown once it ends.')
        : outputs,
    );
    if (hadFocus) section.querySelector('h1').focus({ preventScroll: true });
  }

  return {
    title: 'Execution',
    show(params) {
      if (params.backHash) backHash = params.backHash;
      if (params.id !== currentId) {
        currentId = params.id;
        loadedId = null;
        renderedKey = null;
        settled = false;
        replaceChildren(
          section,
          backLink(),
          h('h1', { id: 'execution-title', tabindex: -1 }, `Execution ${currentId}`),
          h('p', { class: 'muted' }, 'Loading…'),
        );
      }
    },
    // A finished execution is read once; a running one on every poll, until it has ended. (Only a
    // finished one's reason may still come, from the Kubernetes controller, within seconds of the
    // pod's end: Refresh, or opening it again, shows it.)
    async refresh() {
      if (loadedId === currentId && settled) return;
      const id = currentId;
      try {
        const execution = await api.getExecution(id);
        if (id !== currentId) return;
        loadedId = id;
        settled = execution.status !== 'running';
        render(execution);
      } catch (error) {
        if (id !== currentId) return;
        if (error.status === 404 || error.status === 400) {
          loadedId = id;
          settled = true;
          renderedKey = null;
          renderError(error.message);
          return;
        }
        throw error;
      }
    },
    /** The Refresh button: read it again, even when it has ended. */
    invalidate() {
      settled = false;
    },
  };
}

function fact(label, ...value) {
  return h('div', { class: 'fact' }, h('dt', {}, label), h('dd', {}, value));
}

/** A scrollable block of output with wrap, copy, download and jump-to-end for long logs. */
function outputPanel(kind, title, text, execution) {
  const content = text ?? '';
  const lines = content ? content.split('\n').length - (content.endsWith('\n') ? 1 : 0) : 0;
  const pre = h('pre', {
    class: 'output output-wrap',
    tabindex: 0,
    'aria-label': title,
    dataset: { stream: kind },
  });
  // textContent: output is data, whatever characters it holds.
  pre.textContent = content;
  const wrap = h('input', { type: 'checkbox', checked: true });
  wrap.addEventListener('change', () => pre.classList.toggle('output-wrap', wrap.checked));
  const tools = content
    ? h(
        'div',
        { class: 'output-tools' },
        h('label', { class: 'check small' }, wrap, 'Wrap lines'),
        h('button', {
          class: 'btn btn-small btn-ghost',
          type: 'button',
          text: 'Copy',
          'aria-label': `Copy ${kind}`,
          onclick: () => copy(content, kind),
        }),
        h('button', {
          class: 'btn btn-small btn-ghost',
          type: 'button',
          text: 'Download',
          'aria-label': `Download ${kind}`,
          onclick: () => download(content, `${execution.jobName}-${execution.id}.${kind}.txt`),
        }),
        lines > 40
          ? h('button', {
              class: 'btn btn-small btn-ghost',
              type: 'button',
              text: 'Jump to end',
              'aria-label': `Jump to the end of ${kind}`,
              onclick: () => {
                pre.scrollTop = pre.scrollHeight;
                pre.focus();
              },
            })
          : null,
      )
    : null;
  return h(
    'section',
    { class: `output-panel output-${kind}`, 'aria-label': title },
    h(
      'div',
      { class: 'output-head' },
      h('h2', {}, kind),
      h(
        'span',
        { class: 'muted small' },
        content ? `${plural(lines, 'line')} · ${formatBytes(new Blob([content]).size)}` : 'empty',
      ),
      tools,
    ),
    content ? pre : h('p', { class: 'output-empty muted' }, `No ${kind} output.`),
  );
}

async function copy(text, kind) {
  try {
    await navigator.clipboard.writeText(text);
    toast(`Copied ${kind}.`, 'success');
  } catch {
    toast('Copying is not allowed here: select the text and copy it instead.', 'error');
  }
}

function download(text, filename) {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/plain;charset=utf-8' }));
  const link = h('a', { href: url, download: filename.replace(/[^\w.-]+/g, '_') });
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
