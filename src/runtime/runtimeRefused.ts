/**
 * The runtime could not carry out a change (the cluster's API server refused it or could not be
 * reached). The HTTP layer answers 503 with this message: the change was not made and may be
 * tried again.
 */
export class RuntimeRefusedError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RuntimeRefusedError';
  }
}
