// The public surface of @sponge/agent: the memory tools a caller outside the runtime drives (the
// end-to-end tests do). The runtime and the demo are commands (package.json scripts), not
// imports. What is not listed here is private to the package.
export { createMemoryTools } from './memory-tools.ts';
export type { MemoryTools } from './memory-tools.ts';
export { isMemoryToolError } from './errors.ts';
export type { MemoryToolReason } from './errors.ts';
