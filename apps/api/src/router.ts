/**
 * The whole API. `AppRouter` is the type the web app and the agent runtime are built against;
 * procedure names, inputs and outputs of SPEC §5–§7 are fixed.
 */
import { agentRouter } from './routers/agent.ts';
import { authRouter } from './routers/auth.ts';
import { chatRouter } from './routers/chat.ts';
import { documentsRouter } from './routers/documents.ts';
import { libraryRouter } from './routers/library.ts';
import { memoryRouter } from './routers/memory.ts';
import { profilesRouter } from './routers/profiles.ts';
import { reviewRouter } from './routers/review.ts';
import { runsRouter } from './routers/runs.ts';
import { runtimeRouter } from './routers/runtime.ts';
import { publicProcedure, router } from './trpc/procedures.ts';

export const appRouter = router({
  /** `{ ok: true }` once the API is ready (the server listens only after the stores opened). */
  health: publicProcedure.query(() => ({ ok: true as const })),
  auth: authRouter,
  documents: documentsRouter,
  runs: runsRouter,
  runtime: runtimeRouter,
  agent: agentRouter,
  /** The library tools (SPEC §7b): a run token, the run owner's own documents only. */
  library: libraryRouter,
  memory: memoryRouter,
  chat: chatRouter,
  profiles: profilesRouter,
  review: reviewRouter,
});

export type AppRouter = typeof appRouter;
