// The public surface of @sponge/contract: what the API, the hosted runtime and the web app share.
// It builds on Oh's schema entry (@oh/schema: records, the memory tools' inputs, name rules, text
// rules) and adds Sponge's own inputs, limits and reasons. Isomorphic: it loads zod and @oh/schema,
// no Node built-in and no driver.
// Everything Oh's schema entry defines (records, the memory tools' inputs, text rules), as it is,
// but LIMITS: Sponge's own, a superset of Oh's (an explicit export wins over `export *`).
export * from '@oh/schema';
export { LIMITS } from './limits.ts';
export {
  API_REASONS,
  DOCUMENT_REASONS,
  DOCUMENT_REASON_TO_CODE,
  ERROR_REASONS,
  REASON_TO_CODE,
} from './errors.ts';
export type { ApiReason, DocumentReason, ErrorCode, ErrorReason } from './errors.ts';
export {
  DOCUMENT_SOURCES,
  RUN_MODES,
  documentAuthorsSchema,
  documentTitleSchema,
  emailSchema,
  idSchema,
  PASSWORD_RULES,
  passwordSchema,
  personNameSchema,
  messageTextSchema,
  ownerInputs,
  packNameSchema,
  uploadFieldsSchema,
} from './owner-inputs.ts';
export type {
  DocumentSource,
  OwnerInput,
  OwnerProcedure,
  ReviewDecideInput,
  RunMode,
} from './owner-inputs.ts';
export { inputBoundsProblem } from './input-bounds.ts';
export { normalisePassage, passageOccursIn } from './passage.ts';
export {
  TOOL_NAMES,
  modelToolDescriptors,
  toolArgsSchemas,
  toolDescriptors,
  toolInputSchemas,
} from './tools.ts';
export type { ModelToolDescriptor, ToolArgs, ToolDescriptor, ToolName } from './tools.ts';
export {
  CITATIONS_MAX,
  CITATION_STATUSES,
  LIBRARY_SEARCH_DEFAULT,
  LIBRARY_SEARCH_MAX,
  QUOTE_MAX,
  QUOTE_MIN_CHARACTERS,
  QUOTE_MIN_WORDS,
  READ_PASSAGE_MAX,
  RESEARCH_TOOL_NAMES,
  chatEventsInputSchema,
  citationInputSchema,
  libraryInputs,
  noteSourceOf,
  noteSourceSchema,
  quoteTooShort,
  researchToolArgsSchemas,
  researchToolDescriptors,
  sayInputSchema,
  transcriptEventId,
} from './research.ts';
export type {
  Citation,
  CitationInput,
  CitationStatus,
  LibraryHit,
  LibraryPassage,
  NoteSource,
  ResearchToolName,
  TranscriptItem,
} from './research.ts';
export { MCP_TOOLS, MCP_TOOL_NAMES, mcpToolInputs, mcpToolOutputs } from './mcp.ts';
export type { McpToolName, McpToolOutput } from './mcp.ts';
