import type { TestResponse, TestService } from '../support/service';

/** Short-hands over the HTTP API for the mailbox tests; every call asserts its expected status. */
export class MailboxClient {
  constructor(private readonly service: TestService) {}

  async expect(
    status: number,
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ) {
    const response = await this.service.request(method, path, body, headers);
    if (response.status !== status) {
      throw new Error(`${method} ${path}: expected ${status}, got ${response.status} ${response.text}`);
    }
    return response;
  }

  async createLabel(name: string, extra: Record<string, unknown> = {}): Promise<number> {
    return (await this.expect(201, 'POST', '/api/labels', { name, ...extra })).body.id;
  }

  async createMessage(fields: Record<string, unknown> = {}): Promise<number> {
    return (await this.expect(201, 'POST', '/api/messages', { identity_id: 1, ...fields })).body.id;
  }

  async createDraft(fields: Record<string, unknown> = {}): Promise<number> {
    return (await this.expect(201, 'POST', '/api/drafts', { identity_id: 1, ...fields })).body.id;
  }

  async label(labelId: number, messageId: number): Promise<void> {
    await this.expect(200, 'PUT', `/api/labels/${labelId}/messages/${messageId}`);
  }

  async get(path: string): Promise<TestResponse> {
    return this.expect(200, 'GET', path);
  }
}
