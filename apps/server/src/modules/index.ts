import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../context.ts';
import { accountsRoutes } from './accounts/accounts.routes.ts';
import { siteRoutes } from './site/site.routes.ts';

/** Every feature's routes; app.ts registers them in this order. */
export const modules: ((ctx: AppContext) => FastifyPluginAsyncZod)[] = [siteRoutes, accountsRoutes];
