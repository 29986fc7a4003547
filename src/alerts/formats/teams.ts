import type { AlertSnapshot } from '../alertSnapshot';
import {
  headline,
  hintLine,
  policyFacts,
  reasonLine,
  runFacts,
  showsOutputBlock,
  shownOutput,
  type Tone,
  toneOf,
} from './presentation';

/** The Adaptive Card version Teams renders everywhere (desktop, web, mobile). */
const CARD_VERSION = '1.4';
const ADAPTIVE_CARD_CONTENT_TYPE = 'application/vnd.microsoft.card.adaptive';

/**
 * Adaptive Cards expand `{{DATE(...)}}` and `{{TIME(...)}}` in text, TextRuns included. A
 * zero-width space between the braces keeps a job name or output from being read as one.
 */
function breakTemplateFunctions(text: string): string {
  return text.replaceAll('{{', '{\u200b{');
}

/**
 * Fact values are Markdown (Teams' subset: bold, italic, lists, links). A backslash before the
 * characters that open those keeps a value literal: a schedule's asterisks never turn into italics.
 */
function escapeFactValue(value: string): string {
  return breakTemplateFunctions(value.replace(/[\\*_[\]]/g, (c) => `\\${c}`));
}

/** A RichTextBlock's TextRuns are never read as Markdown: the safe place for names and output. */
function plainText(text: string, style: Record<string, unknown> = {}) {
  return {
    type: 'RichTextBlock',
    inlines: [{ type: 'TextRun', text: breakTemplateFunctions(text), ...style }],
  };
}

/** The card's band and headline colour for each tone: Adaptive Cards' container styles and colours. */
const TONE_STYLES: Record<Tone, { style: string; color: string }> = {
  good: { style: 'good', color: 'Good' },
  bad: { style: 'attention', color: 'Attention' },
  warning: { style: 'warning', color: 'Warning' },
};

/**
 * A Teams message for a Workflows webhook ("Post to a channel when a webhook request is
 * received"): one Adaptive Card attachment with the headline in a green (success), red (failure)
 * or amber (a warning of the alert policy) band, the facts schedule, duration, exit code and
 * attempt (what the policy adds after them), the reason and what to try where there is one, and on
 * failure the end of stderr in monospace.
 */
export function teamsMessage(snapshot: AlertSnapshot) {
  const title = headline(snapshot);
  const tone = TONE_STYLES[toneOf(snapshot)];
  const body: unknown[] = [
    {
      type: 'Container',
      style: tone.style,
      bleed: true,
      items: [plainText(title, { weight: 'Bolder', size: 'Large', color: tone.color })],
    },
    {
      type: 'FactSet',
      facts: [...runFacts(snapshot), ...policyFacts(snapshot)].map((fact) => ({
        title: fact.label,
        value: escapeFactValue(fact.value),
      })),
    },
  ];
  // TextRuns, like the title: a reason quotes what Kubernetes said (an image name, a message).
  const reason = reasonLine(snapshot);
  const hint = hintLine(snapshot);
  if (reason) body.push(plainText(`Reason: ${reason}`));
  if (reason && hint) body.push(plainText(`Try: ${hint}`));
  const output = shownOutput(snapshot);
  if (output && showsOutputBlock(snapshot)) {
    // Trailing newlines would only show as blank lines at the end.
    const text = output.text.replace(/\s+$/, '');
    body.push(
      { type: 'TextBlock', text: output.stream, weight: 'Bolder', spacing: 'Medium' },
      {
        type: 'Container',
        style: 'emphasis',
        items: [
          text.length > 0
            ? plainText(text, { fontType: 'Monospace', size: 'Small' })
            : plainText('(empty)', { italic: true, isSubtle: true }),
        ],
      },
    );
  }
  return {
    type: 'message',
    attachments: [
      {
        contentType: ADAPTIVE_CARD_CONTENT_TYPE,
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: CARD_VERSION,
          fallbackText: title,
          msteams: { width: 'Full' },
          body,
        },
      },
    ],
  };
}

/** Hosts that serve Power Automate / Logic Apps workflow triggers, the ones Teams' Workflows hand out. */
const WORKFLOW_HOSTS = ['logic.azure.com', 'powerautomate.com', 'api.powerplatform.com'];

/**
 * A Teams Workflows webhook: `https://<region>.logic.azure.com/workflows/<id>/triggers/...` (the
 * older form) or `https://<env>.environment.api.powerplatform.com/powerautomate/automations/direct/
 * workflows/<id>/triggers/...` (the form Microsoft moved to in 2025). Both a workflow host and a
 * `/workflows/<id>/triggers/` path are needed, so no other Azure or Power Platform URL is taken
 * for one.
 */
export function isTeamsWorkflowUrl(url: URL): boolean {
  const host = url.hostname.toLowerCase();
  const workflowHost = WORKFLOW_HOSTS.some((suffix) => host === suffix || host.endsWith(`.${suffix}`));
  return workflowHost && /\/workflows\/[^/]+\/triggers\//i.test(url.pathname);
}
