// The public surface of @sponge/contract: what the store, the API, the hosted runtime and the web
// app share. Isomorphic: it imports zod and nothing of theirs, and no Node built-in.
export { LIMITS, KIND_RE, NAME_RE, REQUEST_ID_RE, SLUG_RE, kindOf } from './limits.ts';
export {
  LINK_RELS,
  QUESTIONS,
  changeSchema,
  dataSchema,
  explainInputSchema,
  jsonProblem,
  linkSchema,
  nameSchema,
  queryInputSchema,
  readInputSchema,
  recallInputSchema,
  rememberInputSchema,
} from './records.ts';
export type { Change, JsonValue, Link, LinkRel, QueryRow, Question } from './records.ts';
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
  idSchema,
  messageTextSchema,
  ownerInputs,
  packNameSchema,
  sayInputSchema,
  uploadFieldsSchema,
} from './owner-inputs.ts';
export type {
  DocumentSource,
  OwnerInput,
  OwnerProcedure,
  ReviewDecideInput,
  RunMode,
} from './owner-inputs.ts';
export { cleanBody, cleanLine, textProblem, textSchema } from './text.ts';
export type { TextKind } from './text.ts';
export { inputBoundsProblem } from './input-bounds.ts';
export {
  TOOL_NAMES,
  modelToolDescriptors,
  toolArgsSchemas,
  toolDescriptors,
  toolInputSchemas,
} from './tools.ts';
export type { ModelToolDescriptor, ToolArgs, ToolDescriptor, ToolName } from './tools.ts';
