import type { Pool } from 'pg';
import type { Execution } from '../domain/execution';
import { type ExecutionQuery, listExecutions } from '../store/executions';
import type { ListChanges } from '../store/listChangeFeed';
import { type ReadFreshness, VersionedRenders } from './versionedRenders';

/**
 * Rendered pages of the executions list, reused while no execution that the list shows was
 * written or deleted (the list's version): a request then costs one primary-key read instead of
 * the list's query and its serialisation.
 */
export class ExecutionLists {
  private readonly renders: VersionedRenders<Buffer>;

  constructor(
    private readonly pool: Pool,
    changes: ListChanges | null,
  ) {
    this.renders = new VersionedRenders({ list: 'executions', pool, changes });
  }

  /** The page `query` asks for, as `render` writes it (a pure function, the same on every call). */
  get(
    query: ExecutionQuery,
    render: (executions: Execution[]) => Buffer,
    freshness: ReadFreshness = 'current',
  ): Promise<Buffer> {
    // A page of some namespaces' runs is another page (the namespaces a caller may list).
    const listed = (shown: readonly string[] | null) => (shown === null ? '*' : shown.join(','));
    const namespaces = query.namespaces
      ? `/${query.namespaces.home ?? ''}:${listed(query.namespaces.namespaces)}:${listed(query.namespaces.watchedNamespaces)}`
      : '';
    const key = `${query.jobId ?? ''}/${query.status ?? ''}/${query.limit}${namespaces}`;
    return this.renders.get(
      key,
      async () => {
        const { executions, version } = await listExecutions(this.pool, query);
        return { value: render(executions), version };
      },
      0,
      freshness,
    );
  }
}
