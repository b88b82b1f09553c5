// The public surface of @sponge/contract: what the API, the hosted runtime and the web app share.
// It builds on Oh's schema entry (@oh/schema) and adds Sponge's own inputs, limits and reasons.
// Isomorphic: it loads zod and @oh/schema, no Node built-in and no driver. Every name is listed,
// and a name Oh defines is Oh's own: the contract passes it on as it is and never redefines it.

// Oh's records, the memory tools' inputs, its limits, name and text rules (SPEC §3–§5).
export {
  LIMITS,
  LINK_RELS,
  cleanLine,
  dataSchema,
  explainInputSchema,
  kindOf,
  linkSchema,
  nameSchema,
  queryInputSchema,
  readInputSchema,
  recallInputSchema,
  rememberInputSchema,
} from '@oh/schema';
export type { Change, JsonValue, Link, QueryRow } from '@oh/schema';

// Sponge's own limits, beside Oh's.
export { SPONGE_LIMITS } from './limits.ts';

// Refusals (SPEC §9): Oh's reasons, the document reasons and their tRPC codes.
export { DOCUMENT_REASONS, DOCUMENT_REASON_TO_CODE, ERROR_REASONS, REASON_TO_CODE } from './errors.ts';
export type { ApiReason, DocumentReason, ErrorReason } from './errors.ts';

// The owner's inputs (SPEC §6, §7) and the bounds on any input.
export {
  PASSWORD_RULES,
  emailSchema,
  ownerInputs,
  passwordSchema,
  personNameSchema,
  uploadFieldsSchema,
} from './owner-inputs.ts';
export type {
  DocumentSource,
  OwnerInput,
  ReviewDecideInput,
  ReviewGroupRecord,
  RunMode,
} from './owner-inputs.ts';
// What a document is (SPEC §6d): its metadata's rules, shared by the API, import and the web.
export {
  METADATA_LIMITS,
  abstractSchema,
  doiSchema,
  documentYearSchema,
  normaliseDoi,
  normaliseTags,
  tagSchema,
  tagsSchema,
  venueSchema,
} from './metadata.ts';
export { recordNameFrom, uniqueRecordName } from './record-names.ts';
export { inputBoundsProblem } from './input-bounds.ts';

// The five memory tools, as the API and a model see them (SPEC §5, §7b).
export { TOOL_NAMES, modelToolDescriptors, toolArgsSchemas, toolDescriptors } from './tools.ts';
export type { ModelToolDescriptor, ToolArgs, ToolDescriptor, ToolName } from './tools.ts';

// The research assistant: library tools, citations, notes' sources, the transcript (SPEC §7b, §7c).
export {
  CITATIONS_MAX,
  LIBRARY_SEARCH_DEFAULT,
  LIBRARY_SEARCH_MAX,
  QUOTE_MAX,
  READ_PASSAGE_MAX,
  RESEARCH_TOOL_NAMES,
  agentSayInputSchema,
  chatEventsInputSchema,
  keptSupport,
  libraryInputs,
  noteSourceOf,
  noteSourceSchema,
  quoteTooShort,
  researchToolDescriptors,
  sayInputSchema,
  transcriptEventId,
} from './research.ts';
export type {
  Citation,
  CitationInput,
  CitationStatus,
  CitationSupport,
  LibraryHit,
  LibraryPassage,
  NoteSource,
  SaidCitation,
  TranscriptItem,
} from './research.ts';
export { normalisePassage, passageOccursIn } from './passage.ts';
export { FORGOTTEN_NOTE, forgetMentions, mayNameNotes, noteMentions } from './mentions.ts';

// The MCP tools (SPEC §7d).
export {
  MCP_TOOLS,
  MCP_TOOL_NAMES,
  emptyListWords,
  listDocumentsPage,
  mcpToolInputs,
  mcpToolOutputs,
} from './mcp.ts';
export type { McpToolName, McpToolOutput } from './mcp.ts';
export { fetchedPassage, parsePassageId, passageIdProblem, searchResults } from './mcp-passages.ts';
