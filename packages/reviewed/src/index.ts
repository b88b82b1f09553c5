/**
 * `@sponge/reviewed`: Sponge's reviewed knowledge (SPEC §7) as a domain of its own — decisions on
 * proposed records, each with a reviewer, a comment, a source document and a cited passage; every
 * accept a new revision of the document's knowledge, read as of a revision; the vocabulary profiles
 * installed on documents that validate a record's fields; corrections and retractions marked per
 * revision; the history and an export as canonical JSON. It runs on the libSQL client its app hands
 * in, asks @sponge/library what a document is, knows nothing of HTTP or tRPC, and every refusal is
 * a `ReviewError` with a stable reason. Oh's notebook store reads it through
 * `ReviewedKnowledgeReader`, which `ReviewedKnowledge` implements. This file is the whole public
 * API: what it does not export is private.
 *
 * The types tagged `@public` are those of what it takes and returns. Few are imported by name, but
 * an app's declarations must be able to name them from here: the API's AppRouter type is inferred
 * from procedures that return them, and its build fails where one cannot be named (TS2742,
 * TS4023). The unused-code check (knip) cannot see that use, hence the tag.
 */

// Reviewed knowledge itself: revisions, decisions, the records in view at a revision.
export { createReviewedKnowledge } from './knowledge.ts';
/** @public */
export type { ReviewedKnowledgeOptions } from './knowledge.ts';
export type { ReviewedKnowledge } from './types.ts';
/** @public */
export type { ReviewDecision, ReviewDecisionInput, ReviewProfile } from './types.ts';
export { ReviewError, isReviewError } from './errors.ts';
/** @public */
export type { ReviewIssue, ReviewReason } from './errors.ts';

// Its tables: the entries the app's migration list takes (the rest migrate when it opens).
export { REVIEWED_MIGRATIONS } from './migrations.ts';

// The review workbench: a proposal checked against the installed profile and its source, decided.
export { decideReview } from './review.ts';
/** @public */
export type { GroupOutcome, Normalization, Notebook, ReviewDesk, ReviewOutcome } from './review.ts';

// Vocabulary profiles installed on documents.
export {
  installProfile,
  installShippedProfile,
  offeredProfiles,
  previewProfile,
  profileCatalogue,
} from './profiles.ts';
/** @public */
export type { InstalledState, ProfileSummary } from './profiles.ts';

// What is on record, for the owner: the history, an export, the findings an agent lists over MCP,
// and the Memory panel: its rows beside the working notes, what was decided from each note.
export { reviewExport, reviewHistory, reviewedFindings } from './history.ts';
/** @public */
export type { HistoryEntry, ReviewRecords } from './history.ts';
/** @public */
export type { PanelConflict, ReviewedRow, WorkingNoteRow } from './panel.ts';
export { memoryPanel, toSessionView } from './memory-panel.ts';
/** @public */
export type { NoteReview, PanelRecall, PanelStore, SessionView } from './memory-panel.ts';

// The `verify` command's check: every digest recomputed; reviewed records are reported, never rewritten.
export { verifyReviewed } from './verify.ts';
export type { ReviewedVerification } from './verify.ts';
