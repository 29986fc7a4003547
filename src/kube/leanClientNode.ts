import * as nodeModule from 'node:module';

/** What Node's synchronous module hooks (22.15+, 24) pass around, as far as this file reads it. */
interface LoadResult {
  source?: string | ArrayBuffer | NodeJS.TypedArray;
  format?: string;
}
type RegisterHooks = (hooks: {
  load: (url: string, context: object, nextLoad: (url: string, context: object) => LoadResult) => LoadResult;
}) => unknown;

/** client-node's generated index, which every part of the package imports (KubeConfig too). */
const GENERATED_INDEX = '/@kubernetes/client-node/dist/gen/index.js';
/** Its one line that loads the API classes: `export { ObjectCoreV1Api as CoreV1Api, ... } from ...`. */
const API_CLASSES_EXPORT = /^export \{[^}]*\} from '\.\/types\/ObjectParamAPI\.js';[ \t]*$/m;

/**
 * Keeps @kubernetes/client-node's API classes (`CoreV1Api`, `BatchV1Api`... of every API group, in
 * three layers: ObjectParamAPI, PromiseAPI, ObservableAPI) from loading in this process: its
 * `KubeConfig` imports the package's generated index, which re-exports them all, and V8 keeps what
 * a module loaded for good (some 15 MB of the controller's memory on Node 24, 12 MB of it their
 * sources). The process then reaches the API through leanApis.ts, over the same generated request
 * factories and response processors; nothing in it may use the API classes, which are undefined.
 *
 * Done with a load hook that drops that one re-export from the index as it loads. Node 20 has no
 * synchronous hooks, and a client-node whose index reads otherwise is loaded whole: either way the
 * process works as before, with the classes loaded. Returns whether the hook is in place; call it
 * before anything loads client-node.
 *
 * @public Required lazily by src/cli.ts (with the cluster parts) and by its test in a Node 24
 * process of its own; knip follows neither.
 */
export function leaveClientNodeApiClassesUnloaded(): boolean {
  const registerHooks = (nodeModule as { registerHooks?: RegisterHooks }).registerHooks;
  if (typeof registerHooks !== 'function') return false;
  registerHooks({
    load(url, context, nextLoad) {
      const loaded = nextLoad(url, context);
      if (!url.endsWith(GENERATED_INDEX) || loaded.source === undefined) return loaded;
      const source =
        typeof loaded.source === 'string' ? loaded.source : new TextDecoder().decode(loaded.source);
      return { ...loaded, source: source.replace(API_CLASSES_EXPORT, '') };
    },
  });
  return true;
}
