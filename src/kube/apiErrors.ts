/**
 * How the Kubernetes API server says no, read the same way by the controller and the Kubernetes
 * runtime: the HTTP status of a refusal and the message of its Status body.
 */

/** An API error's HTTP status (client-node's ApiException carries it as `code`). */
export function statusOf(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
}

/** The API server's message in a refusal (its Status body), else the error's own message. */
export function apiMessage(error: unknown): string {
  const body = (error as { body?: unknown }).body;
  try {
    const parsed =
      typeof body === 'string' ? (JSON.parse(body) as { message?: string }) : (body as { message?: string });
    if (parsed?.message) return parsed.message;
  } catch {
    // Not JSON: fall through.
  }
  return (error as Error).message;
}
