/**
 * A Kubernetes object as tests poke at it: parsed JSON whose shape the test knows, edited in place
 * to break one field at a time. The validators, not the type checker, judge it.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Loose = any;
