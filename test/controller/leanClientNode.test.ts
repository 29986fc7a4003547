import { execFileSync } from 'node:child_process';
import path from 'node:path';

const REPO_ROOT = path.resolve(__dirname, '../..');

/**
 * The hook needs Node's synchronous module hooks, which the image's Node 24 has and Node 20 has
 * not; and it must run before client-node loads, in a process of its own. So a Node 24 process
 * (scripts/node24.sh, as CI's) loads the module from its source (Node 24 strips the types), puts
 * the hook in place, loads client-node as the controller does, and says what it saw.
 */
function loadInNode24(): {
  placed: boolean;
  apiClasses: string;
  kubeConfig: string;
  informer: string;
  requestFactory: string;
  layersLoaded: string[];
} {
  const node24 = path.join(
    execFileSync('bash', [path.join(REPO_ROOT, 'scripts/node24.sh')], {
      encoding: 'utf8',
      timeout: 120_000,
    }).trim(),
    'node',
  );
  const script = `
    const seen = [];
    require('node:module').registerHooks({ load(url, context, next) { seen.push(url); return next(url, context); } });
    const placed = require('./src/kube/leanClientNode.ts').leaveClientNodeApiClassesUnloaded();
    const clientNode = require('@kubernetes/client-node');
    const batch = require('@kubernetes/client-node/dist/gen/apis/BatchV1Api.js');
    const kc = new clientNode.KubeConfig();
    kc.loadFromOptions({ clusters: [{ name: 'c', server: 'https://example.invalid' }], users: [{ name: 'u', token: 't' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }], currentContext: 'x' });
    process.stdout.write(JSON.stringify({
      placed,
      apiClasses: typeof clientNode.BatchV1Api,
      kubeConfig: kc.getCurrentCluster().server,
      informer: typeof clientNode.makeInformer,
      requestFactory: typeof batch.BatchV1ApiRequestFactory,
      layersLoaded: seen.filter((url) => /\\/gen\\/types\\/|\\/gen\\/apis\\/AppsV1Api\\.js$/.test(url)),
    }));
  `;
  const out = execFileSync(node24, ['--disable-warning=ExperimentalWarning', '-e', script], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return JSON.parse(out) as ReturnType<typeof loadInNode24>;
}

describe("leaving client-node's API classes unloaded (Node 24)", () => {
  it('loads KubeConfig, the informer and the request factories, and none of the API class layers', () => {
    const seen = loadInNode24();
    expect(seen.placed).toBe(true);
    expect(seen.kubeConfig).toBe('https://example.invalid');
    expect(seen.informer).toBe('function');
    expect(seen.requestFactory).toBe('function');
    // Neither the three layers of API classes nor the API groups the controller never calls.
    expect(seen.layersLoaded).toEqual([]);
    expect(seen.apiClasses).toBe('undefined');
  });
});
