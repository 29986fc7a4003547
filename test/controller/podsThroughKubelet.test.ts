import type { V1Container, V1PodSpec } from '@kubernetes/client-node';
import fc from 'fast-check';
import { type CronJobContext, desiredCronJob } from '../../src/controller/desired/cronJob';
import { kubeletLiteral } from '../../src/kube/kubeletLiteral';
import { reportTokenLocation } from '../../src/controller/desired/reportTokens';
import { sidecarScript } from '../../src/controller/desired/sidecarScript';
import { RUNNER_ENV } from '../../src/runner/runnerEnvironment';
import { containerArgv, containerEnvironment, expandReferences } from '../support/kube/expansion';
import { scheduledJob } from './support/arbitraries';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * What the containers of a generated pod see once a kubelet has resolved and expanded them
 * (expansion.ts follows the kubelet's documented `$(VAR)` and `$$` rules): the command, the env
 * values and the job container's script must arrive exactly as the ScheduledJob wrote them, as they
 * do locally, whatever `$`, parentheses, quotes or text they hold.
 */

const context: CronJobContext = {
  jobId: 7,
  jobName: 'bytes',
  image: 'ghcr.io/crondeck/crondeck:0.1.0',
  reportUrl: 'http://crondeck.crondeck.svc:7433',
  paused: false,
};

/** The command of the e2e suite: every kind of text a kubelet or a careless encoding could change. */
const HOSTILE_COMMAND = [
  'echo "shell pid=$$"',
  'echo "now=$(date +%Y)" `echo tick` $((1 + 2))',
  'echo \'$(HOME)\' "$(HOME)" $$(HOME) $(MODE) ${HOME} $HOME',
  'printf "%s\\n" "tab\there" \'single "double"\' "back\\\\slash"',
  'echo "naïve ☃ 漢字 🎉" $',
].join('\n');

function containersOf(spec: Obj & { command: string }): { pod: V1PodSpec; all: V1Container[] } {
  const job = scheduledJob('bytes', { schedule: '* * * * *', ...spec });
  const pod = desiredCronJob(job, context).spec!.jobTemplate.spec!.template.spec!;
  return { pod, all: [...(pod.initContainers ?? []), ...pod.containers] };
}

/** The kubelet's view: the pod as stored, the token Secret, the pod's own metadata. */
function resolve(container: V1Container): { env: Map<string, string>; argv: string[] } {
  const token = reportTokenLocation(context.jobId);
  const pod = {
    metadata: { name: 'bytes-1-x', namespace: 'ns', uid: 'pod-uid', labels: {} },
    spec: {},
  };
  const env = containerEnvironment(container as Obj, {
    pod,
    secret: (name) =>
      name === token.secretName
        ? { data: { [token.key]: Buffer.from('tok').toString('base64') } }
        : undefined,
    configMap: () => undefined,
  });
  return { env, argv: containerArgv(container as Obj, env) };
}

describe('generated pods through the kubelet’s expansion', () => {
  it('deliver the command byte for byte to `crondeck run` (default image)', () => {
    const { all } = containersOf({
      command: HOSTILE_COMMAND,
      env: [
        { name: 'HOME', value: '/home/$(MODE)' },
        { name: 'MODE', value: 'fast $$' },
      ],
    });
    const [run] = all;
    const { env, argv } = resolve(run!);
    expect(argv).toEqual(['crondeck', 'run']);
    expect(env.get(RUNNER_ENV.command)).toBe(HOSTILE_COMMAND);
    // The ScheduledJob's env values are literal too (the CRD says so), as in local mode.
    expect(env.get('HOME')).toBe('/home/$(MODE)');
    expect(env.get('MODE')).toBe('fast $$');
  });

  it('deliver the command to the runner sidecar and the script to the job image’s /bin/sh (spec.image)', () => {
    const { pod } = containersOf({
      command: HOSTILE_COMMAND,
      image: 'docker.io/library/busybox:1.36',
      env: [{ name: 'HOME', value: '/home/job' }],
    });
    const runner = resolve(pod.initContainers![0]!);
    expect(runner.env.get(RUNNER_ENV.command)).toBe(HOSTILE_COMMAND);
    expect(runner.env.get(RUNNER_ENV.superviseDir)).toBe('/crondeck');
    const job = resolve(pod.containers[0]!);
    // The handshake writes the shell's own pid: `echo "$$"`, not `echo "$"`.
    expect(job.argv).toEqual(['/bin/sh', '-c', sidecarScript('/crondeck')]);
    expect(job.argv[2]).toContain('echo "$$" > "$d/ready"');
  });

  it('deliver any command and env value unchanged', () => {
    const text = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 60 }),
      fc
        .array(fc.constantFrom('$', '$$', '(', ')', '$(', 'HOME', 'MODE', 'x', '`', '"', "'", '\n', 'é'), {
          maxLength: 20,
        })
        .map((parts) => parts.join('')),
    );
    fc.assert(
      fc.property(text, text, fc.boolean(), (command, value, ownImage) => {
        const { all } = containersOf({
          command: command.trim() === '' ? 'true' : command,
          env: [
            { name: 'HOME', value },
            { name: 'MODE', value: `${value}$(HOME)` },
          ],
          ...(ownImage ? { image: 'busybox:1.36' } : {}),
        });
        for (const container of all) {
          const { env } = resolve(container);
          if (env.has(RUNNER_ENV.command)) {
            expect(env.get(RUNNER_ENV.command)).toBe(command.trim() === '' ? 'true' : command);
          }
          if (env.has('HOME')) expect(env.get('HOME')).toBe(value);
          if (env.has('MODE')) expect(env.get('MODE')).toBe(`${value}$(HOME)`);
        }
      }),
    );
  });

  it('kubeletLiteral is undone by the expansion for every string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 80 }), (text) => {
        expect(expandReferences(kubeletLiteral(text), () => 'EXPANDED')).toBe(text);
      }),
    );
  });
});
