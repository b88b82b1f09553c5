/**
 * The type entry of @sponge/api: import it with `import type` only. The server itself starts
 * from `src/bin/main.ts` (see `startServer` in `src/server.ts`).
 *
 * @example
 * import type { AppRouter, RouterOutputs } from '@sponge/api';
 * type Panel = RouterOutputs['memory']['panel'];
 */
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from './router.ts';

export type { AppRouter } from './router.ts';
export type RouterInputs = inferRouterInputs<AppRouter>;
export type RouterOutputs = inferRouterOutputs<AppRouter>;
