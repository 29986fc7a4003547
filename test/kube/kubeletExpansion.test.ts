import {
  containerArgv,
  containerEnvironment,
  ContainerConfigError,
  expandReferences,
  type EnvironmentSources,
} from '../support/kube/expansion';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const vars: Record<string, string> = { VAR_A: 'A', VAR_B: 'B', EMPTY: '', BIG_MONEY: '$$$' };
const expand = (text: string) => expandReferences(text, (name) => vars[name]);

describe('expandReferences: the kubelet’s $(VAR) and $$ (EnvVar.value, Container.command)', () => {
  it.each([
    ['a reference', '$(VAR_A)', 'A'],
    ['references inside text', '___$(VAR_A)_$(VAR_B)___', '___A_B___'],
    ['a reference to an empty variable', 'x$(EMPTY)y', 'xy'],
    ['an unresolvable reference, kept as written', 'x$(NOT_DEFINED)y', 'x$(NOT_DEFINED)y'],
    ['"$$(VAR_NAME)" is the literal "$(VAR_NAME)"', '$$(VAR_A)', '$(VAR_A)'],
    ['$$ is one $', 'pid=$$', 'pid=$'],
    ['$$$$ is $$', '$$$$', '$$'],
    ['an odd run of $ keeps the last one', '$$$', '$$'],
    ['an escaped $ before a reference', '$$$(VAR_A)', '$A'],
    ['a value is not expanded again', '$(BIG_MONEY)', '$$$'],
    ['$ before any other character stays', 'echo $HOME ${X} $1 $?', 'echo $HOME ${X} $1 $?'],
    ['a $ at the end stays', 'cost: 5$', 'cost: 5$'],
    ['an unclosed reference stays', '$(VAR_A', '$(VAR_A'],
    ['a reference runs to the first )', '$(echo $(VAR_A))', '$(echo $(VAR_A))'],
    ['a shell command substitution is an unresolvable reference', 'now $(date +%s)', 'now $(date +%s)'],
    ['arithmetic stays', '$((n + 1))', '$((n + 1))'],
    ['an empty reference stays', '$()', '$()'],
    ['non-ASCII text passes', 'é $(VAR_A) 漢字 🎉', 'é A 漢字 🎉'],
  ])('%s', (_what, input, expected) => {
    expect(expand(input)).toBe(expected);
  });

  it('gives every string back unchanged once each $ is doubled (how a literal value is written)', () => {
    for (const text of ['$$', '$(VAR_A)', '$(date)', 'a$', '$((1+1))', '`x` "$y" \'$z\'\n$', '💲$(VAR_B)']) {
      expect(expand(text.split('$').join('$$'))).toBe(text);
    }
  });
});

const secret = (data: Record<string, string>): Obj => ({
  data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
});

function sources(objects: { secrets?: Record<string, Obj>; configMaps?: Record<string, Obj> } = {}) {
  return {
    pod: {
      metadata: {
        name: 'p-1',
        namespace: 'ns',
        uid: 'uid-1',
        labels: { 'batch.kubernetes.io/controller-uid': 'job-uid', app: 'x' },
        annotations: { note: 'hi' },
      },
      spec: { nodeName: 'node-a', serviceAccountName: 'default' },
      status: { podIP: '10.0.0.5' },
    },
    secret: (name: string) => objects.secrets?.[name],
    configMap: (name: string) => objects.configMaps?.[name],
  } satisfies EnvironmentSources;
}

describe('containerEnvironment: the kubelet’s env of a container', () => {
  it('expands a value against the variables defined before it, in order, not after it', () => {
    const env = containerEnvironment(
      {
        env: [
          { name: 'FIRST', value: 'one' },
          { name: 'BOTH', value: '$(FIRST)+$(LATER)' },
          { name: 'LATER', value: 'two' },
          { name: 'ESCAPED', value: '$$(FIRST) pid=$$' },
        ],
      },
      sources(),
    );
    expect(Object.fromEntries(env)).toEqual({
      FIRST: 'one',
      BOTH: 'one+$(LATER)',
      LATER: 'two',
      ESCAPED: '$(FIRST) pid=$',
    });
  });

  it('resolves Secrets, ConfigMaps and the downward API without expanding them, and they count as defined', () => {
    const env = containerEnvironment(
      {
        envFrom: [{ configMapRef: { name: 'settings' }, prefix: 'CM_' }],
        env: [
          { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'tokens', key: 'token' } } },
          { name: 'MODE', valueFrom: { configMapKeyRef: { name: 'settings', key: 'mode' } } },
          { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
          { name: 'UID', valueFrom: { fieldRef: { fieldPath: 'metadata.uid' } } },
          { name: 'NS', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
          {
            name: 'RUN',
            valueFrom: { fieldRef: { fieldPath: "metadata.labels['batch.kubernetes.io/controller-uid']" } },
          },
          { name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
          { name: 'IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
          { name: 'ALL', value: '$(TOKEN)/$(MODE)/$(POD)/$(CM_mode)' },
          { name: 'MISSING', valueFrom: { secretKeyRef: { name: 'nope', key: 'k', optional: true } } },
        ],
      },
      sources({
        secrets: { tokens: secret({ token: 't$(POD)k' }) },
        configMaps: { settings: { data: { mode: 'm$$', 'not a name': 'skipped' } } },
      }),
    );
    expect(Object.fromEntries(env)).toEqual({
      CM_mode: 'm$$',
      TOKEN: 't$(POD)k',
      MODE: 'm$$',
      POD: 'p-1',
      UID: 'uid-1',
      NS: 'ns',
      RUN: 'job-uid',
      NODE: 'node-a',
      IP: '10.0.0.5',
      ALL: 't$(POD)k/m$$/p-1/m$$',
    });
  });

  it('adds the service variables after the container’s, which win and may refer to them', () => {
    const env = containerEnvironment(
      {
        env: [
          { name: 'URL', value: 'https://$(KUBERNETES_SERVICE_HOST)' },
          { name: 'KUBERNETES_PORT', value: 'mine' },
        ],
      },
      { ...sources(), serviceEnv: { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_PORT: 'theirs' } },
    );
    expect(Object.fromEntries(env)).toEqual({
      URL: 'https://10.96.0.1',
      KUBERNETES_PORT: 'mine',
      KUBERNETES_SERVICE_HOST: '10.96.0.1',
    });
  });

  it('refuses to start a container whose required Secret or key is missing', () => {
    const missingSecret = { env: [{ name: 'T', valueFrom: { secretKeyRef: { name: 'gone', key: 'k' } } }] };
    expect(() => containerEnvironment(missingSecret, sources())).toThrow(ContainerConfigError);
    const missingKey = { env: [{ name: 'T', valueFrom: { secretKeyRef: { name: 's', key: 'other' } } }] };
    expect(() => containerEnvironment(missingKey, sources({ secrets: { s: secret({ k: 'v' }) } }))).toThrow(
      "couldn't find key other in Secret ns/s",
    );
  });
});

describe('containerArgv: command and args against the container’s environment', () => {
  it('expands both with every variable of the container, and reduces $$', () => {
    const env = new Map([
      ['HOME', '/home/job'],
      ['D', '/crondeck'],
    ]);
    expect(
      containerArgv(
        { command: ['/bin/sh', '-c', 'echo $(HOME) $$ $(date) "$$HOME"'], args: ['$(D)/x', '$(UNSET)'] },
        env,
      ),
    ).toEqual(['/bin/sh', '-c', 'echo /home/job $ $(date) "$HOME"', '/crondeck/x', '$(UNSET)']);
  });
});
