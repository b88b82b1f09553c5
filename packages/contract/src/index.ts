// The public surface of @sponge/contract: what the API, the hosted runtime and the web app share.
// It builds on Oh's schema entry (@oh/schema: records, the memory tools' inputs, name rules, text
// rules) and adds Sponge's own inputs, limits and reasons. Isomorphic: it loads zod and @oh/schema,
// no Node built-in and no driver.
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
} from '@oh/schema';
export type { Change, JsonValue, Link, LinkRel, QueryRow, Question } from '@oh/schema';
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
export { cleanBody, cleanLine, textProblem, textSchema } from '@oh/schema';
export type { TextKind } from '@oh/schema';
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
