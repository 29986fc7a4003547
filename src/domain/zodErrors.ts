import type { z } from 'zod';

/**
 * Turns a zod failure into one sentence naming the field, e.g. `timeout: must be at most 86400`.
 * The first issue is the one reported: a client fixes one thing at a time anyway, and the message
 * stays short enough to show in a dashboard.
 */
export function describeZodError(error: z.ZodError, prefix?: string): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid input';
  const path = [...(prefix ? [prefix] : []), ...issue.path.map(String)].join('.');
  return path ? `${path}: ${issue.message}` : issue.message;
}

/**
 * The `error` option of a strict object: unknown keys are named ("unknown field foo"), anything
 * else (not an object at all) gets `shapeMessage`.
 */
export function strictObjectError(shapeMessage: string) {
  return (issue: { code?: string; keys?: string[] }) =>
    issue.code === 'unrecognized_keys' ? `unknown field ${(issue.keys ?? []).join(', ')}` : shapeMessage;
}
