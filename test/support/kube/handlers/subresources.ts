import { notEmulated } from '../errors';
import type { HandlerResult, RequestContext, ServerServices } from './context';

/** POST to a subresource (pods/binding, serviceaccounts/token); builtins register handlers here. */
export const subresourceHandlers = new Map<
  string,
  (svc: ServerServices, ctx: RequestContext) => HandlerResult
>();

export function subresourcePost(svc: ServerServices, ctx: RequestContext): HandlerResult {
  const handler = subresourceHandlers.get(`${ctx.info.resource}/${ctx.info.subresource}`);
  if (!handler) throw notEmulated(`POST ${ctx.info.resource}/${ctx.info.subresource}`);
  return handler(svc, ctx);
}
