/** An expression that does not parse (cel-go would refuse it at compile time). */
export class CelSyntaxError extends Error {}

/** A runtime failure, with cel-go's text (`no such key: schedule`, `division by zero` …). */
export class CelEvalError extends Error {}

/**
 * A part of CEL (a function, a type) this evaluator does not implement: callers refuse the request
 * loudly rather than guess the server's answer.
 */
export class CelUnsupported extends Error {}
