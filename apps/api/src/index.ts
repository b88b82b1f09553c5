/**
 * The type entry of @sponge/api: import it with `import type` only. The server itself starts
 * from `src/main.ts` (see `startServer` in `src/server.ts`).
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

export type { ErrorDataExtras, InputIssue } from './trpc.ts';
export type { ApiReason } from './errors.ts';
export type { TranscriptItem } from '@sponge/contract';
export type { PanelConflict, WorkingNoteRow, ReviewedRow } from '@sponge/reviewed';
export type { RecallAnswer } from './routers/agent.ts';
export type { SessionView } from './views.ts';
export type { ToolDescriptor } from '@sponge/contract';
