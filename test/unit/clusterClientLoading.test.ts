/**
 * @kubernetes/client-node's generated API costs some 60 MB of memory: `serve` on one machine and
 * `run` in every job's pod must not load it (src/cli.ts, src/runtime/createRuntime.ts).
 */
describe('loading @kubernetes/client-node', () => {
  const loadsClientNode = (modules: string[]): boolean => {
    let loaded = false;
    jest.isolateModules(() => {
      jest.doMock('@kubernetes/client-node', () => {
        loaded = true;
        return {};
      });
      for (const module of modules) require(module);
    });
    return loaded;
  };

  it('is left to the commands that talk to a cluster', () => {
    // What src/cli.ts imports before it knows the command.
    expect(
      loadsClientNode([
        '../../src/service',
        '../../src/runner/podRunner',
        '../../src/runner/supervisor',
        '../../src/controller/crds/manifestsCommand',
        '../../src/config/controllerEnvironment',
        '../../src/store/open',
      ]),
    ).toBe(false);
    // The check itself sees a module that does load it.
    expect(loadsClientNode(['../../src/controller/runtime/kubeConfig'])).toBe(true);
  });
});
