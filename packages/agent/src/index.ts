// The public surface of @sponge/agent. What is not listed here is private to the package.
export { createMemoryTools } from './memory-tools.ts';
export type {
  ExplainResult,
  LoadResult,
  MemoryTools,
  MemoryToolsEvent,
  MemoryToolsOptions,
  MemoryToolsState,
  QueryAnswer,
  ReadResult,
  RecallResult,
  RememberArgs,
  RememberResult,
  ToolResults,
} from './memory-tools.ts';
export { createLibraryTools } from './library-tools.ts';
export type { DroppedSource, LibraryTools, LibraryToolsOptions, SeenPassage } from './library-tools.ts';
export { MemoryToolError, isMemoryToolError } from './errors.ts';
export type { MemoryToolErrorCode, MemoryToolReason } from './errors.ts';
export { REEF_NOTES, runReefScenario } from './reef.ts';
export type { ReefScenarioOptions, ReefScenarioResult } from './reef.ts';
export { createRuntime } from './runtime/runtime.ts';
export type {
  RunOutcome,
  RunReport,
  Runtime,
  RuntimeEvent,
  RuntimeOptions,
  RuntimeReport,
} from './runtime/runtime.ts';
export { createScriptedAgent } from './runtime/scripted-agent.ts';
export type { TurnAgent, TurnAnswer, TurnDocument, TurnInput } from './runtime/turn.ts';
