import { z } from 'zod';

/**
 * Field schemas of Kubernetes shapes that the resources reuse (env references, resource
 * quantities, conditions). Each carries the limits the API server applies to the same field, so a
 * resource that passes here does not fail later when the controller copies it into a CronJob.
 */

/** DNS-1123 subdomain: names of Secrets and ConfigMaps. */
export const DNS1123_SUBDOMAIN_PATTERN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** Keys of a Secret's or ConfigMap's data. */
const DATA_KEY_PATTERN = /^[-._a-zA-Z0-9]+$/;
/** Environment variable names as the API server accepts them (C identifiers, plus dots and dashes). */
const ENV_NAME_PATTERN = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;
/** The Quantity grammar of apimachinery (`500m`, `1.5`, `128Mi`, `1e3`). */
const QUANTITY_PATTERN =
  /^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$/;

export const MAX_ENV_VARS = 100;
const MAX_ENV_VALUE_LENGTH = 32_768;

const objectName = (what: string) =>
  z
    .string()
    .min(1)
    .max(253)
    .regex(DNS1123_SUBDOMAIN_PATTERN, { error: 'must be a DNS-1123 subdomain (lowercase, digits, "-", ".")' })
    .describe(`Name of the ${what} in the same namespace.`);

const dataKey = (what: string) =>
  z
    .string()
    .min(1)
    .max(253)
    .regex(DATA_KEY_PATTERN, { error: 'must consist of letters, digits, "-", "_" or "."' })
    .describe(`Key within the ${what}.`);

export const secretKeySelectorSchema = z
  .object({ name: objectName('Secret'), key: dataKey('Secret') })
  .describe('A key of a Secret in the same namespace.');

/**
 * The shared Secrets that hold a namespace's report tokens, a key per job
 * (controller/desired/reportTokens.ts). A job that could read them could report for every other
 * job of its namespace, so no job's env may name them.
 */
export const REPORT_TOKEN_SECRET_PREFIX = 'crondeck-report-tokens-';
const REPORT_TOKENS_REFUSED = `Secrets named ${REPORT_TOKEN_SECRET_PREFIX}* hold the report tokens of other jobs; a job may not read them`;

/** A Secret's key that a job's command gets: any Secret of the namespace but the report tokens'. */
const jobSecretKeySelectorSchema = secretKeySelectorSchema
  .refine((ref) => !ref.name.startsWith(REPORT_TOKEN_SECRET_PREFIX), { error: REPORT_TOKENS_REFUSED })
  .meta({
    'x-kubernetes-validations': [
      { rule: `!self.name.startsWith('${REPORT_TOKEN_SECRET_PREFIX}')`, message: REPORT_TOKENS_REFUSED },
    ],
  });

const configMapKeySelectorSchema = z
  .object({ name: objectName('ConfigMap'), key: dataKey('ConfigMap') })
  .describe('A key of a ConfigMap in the same namespace.');

const onlyOne = (value: object, keys: string[], ctx: z.RefinementCtx, required: boolean) => {
  const present = keys.filter((key) => (value as Record<string, unknown>)[key] !== undefined);
  if (present.length > 1 || (required && present.length === 0)) {
    ctx.addIssue({ code: 'custom', message: `must set exactly one of ${keys.join(', ')}` });
  }
};

/**
 * CEL rules for "exactly one of" (the API server enforces them; zod does the same below). The CRD
 * stays oneOf-free because a structural schema may not carry types inside oneOf branches.
 */
export const exactlyOneRule = (a: string, b: string) => ({
  rule: `has(self.${a}) != has(self.${b})`,
  message: `exactly one of ${a} and ${b} must be set`,
});
const atMostOneRule = (a: string, b: string) => ({
  rule: `!(has(self.${a}) && has(self.${b}))`,
  message: `at most one of ${a} and ${b} may be set`,
});

const envVarSourceSchema = z
  .object({
    secretKeyRef: jobSecretKeySelectorSchema.optional(),
    configMapKeyRef: configMapKeySelectorSchema.optional(),
  })
  .superRefine((value, ctx) => onlyOne(value, ['secretKeyRef', 'configMapKeyRef'], ctx, true))
  .describe('Where the value comes from: exactly one of secretKeyRef and configMapKeyRef.')
  .meta({ 'x-kubernetes-validations': [exactlyOneRule('secretKeyRef', 'configMapKeyRef')] });

export const envVarSchema = z
  .object({
    name: z
      .string()
      .min(1)
      .max(256)
      .regex(ENV_NAME_PATTERN, { error: 'must be a valid environment variable name' })
      .refine((name) => !name.startsWith('CRONDECK_'), { error: 'CRONDECK_* names are reserved' })
      .describe('Name of the environment variable. Names starting with CRONDECK_ are reserved.'),
    value: z
      .string()
      .max(MAX_ENV_VALUE_LENGTH)
      .optional()
      .describe('Literal value. Leave it out when valueFrom is set.'),
    valueFrom: envVarSourceSchema.optional(),
  })
  .superRefine((value, ctx) => onlyOne(value, ['value', 'valueFrom'], ctx, false))
  .describe(
    'An environment variable of the command: a literal value or a reference to a Secret or ConfigMap.',
  )
  .meta({ 'x-kubernetes-validations': [atMostOneRule('value', 'valueFrom')] });

/** A quantity such as `250m` or `1` (CPU) or `128Mi` (memory): a string, or a number in YAML. */
const quantitySchema = (what: string) =>
  z
    .union([z.number().int().min(0).max(1_000_000_000_000), z.string().max(64).regex(QUANTITY_PATTERN)])
    .describe(what)
    .meta({ 'x-kubernetes-int-or-string': true });

const resourceAmountsSchema = (what: string) =>
  z
    .object({
      cpu: quantitySchema(`CPU ${what}, in cores (e.g. 250m or 1).`).optional(),
      memory: quantitySchema(`Memory ${what}, in bytes (e.g. 128Mi or 1Gi).`).optional(),
    })
    .describe(`CPU and memory ${what}.`);

export const resourceRequirementsSchema = z
  .object({
    requests: resourceAmountsSchema('requested for scheduling').optional(),
    limits: resourceAmountsSchema('limits enforced while the run is active').optional(),
  })
  .describe('CPU and memory of the container that runs the command.');

/** The standard condition shape of meta/v1 (Condition), with the API server's own limits. */
const conditionSchema = z
  .object({
    type: z
      .string()
      .max(316)
      .regex(
        /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$/,
      )
      .describe('Type of the condition, e.g. Ready.'),
    status: z.enum(['True', 'False', 'Unknown']).describe('Status of the condition: True, False or Unknown.'),
    observedGeneration: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('The metadata.generation the condition was set for.')
      .meta({ format: 'int64' }),
    lastTransitionTime: z.iso
      .datetime({ offset: true })
      .describe('When the condition last changed status.')
      .meta({ format: 'date-time' }),
    reason: z
      .string()
      .min(1)
      .max(1024)
      .regex(/^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/)
      .describe('Machine-readable reason in CamelCase.'),
    message: z.string().max(32_768).describe('Human-readable detail.'),
  })
  .describe('A standard Kubernetes condition (metav1.Condition).');

/** The standard status fields every resource of ours has: the generation seen, and conditions. */
export function observedStatusFields(conditionsDescription: string) {
  return {
    observedGeneration: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('The metadata.generation this status describes.')
      .meta({ format: 'int64' }),
    conditions: z
      .array(conditionSchema)
      .max(16)
      .optional()
      .describe(conditionsDescription)
      .meta({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] }),
  };
}
