/**
 * Sponge's own limits (documents, chat, review, uploads, request bounds), beside Oh's record and
 * tool limits (`LIMITS`, SPEC §3–§5), which the contract passes on as Oh defines them. Each limit
 * has one home: no key here is one of Oh's.
 *
 * @example messageTextSchema.max(SPONGE_LIMITS.messageChars)
 */
export const SPONGE_LIMITS = {
  /** An agent's reply and an owner's turn in the chat. */
  messageChars: 20_000,
  /** A cited source passage. */
  passageChars: 20_000,
  /** A reviewer's comment. */
  commentChars: 4_000,
  /** Records `review.decide` takes beside its main one (a finding's new study, its publication…). */
  reviewGroup: 8,
  /** Ids of documents, runs, sessions, users and keys. */
  idChars: 200,
  /** An uploaded file (SPEC §6b), checked while the body streams in. */
  uploadBytes: 20 * 1024 * 1024,
  /**
   * An import from a reference manager (SPEC §6d): its entries, its bibliography file, and the
   * whole request (the bibliography with its PDFs, or a .zip of the export folder). Each PDF is
   * also held to `uploadBytes`.
   */
  importEntries: 500,
  importBibliographyBytes: 5 * 1024 * 1024,
  importBytes: 200 * 1024 * 1024,
  /**
   * Documents one `documents.cite` names: a query travels in the URL, and 500 ids made a 22 KB
   * request line the server refused with an empty 431; 200 stay under 10 KB.
   */
  citeDocuments: 200,
  /** Pages of one uploaded PDF. */
  documentPages: 2_000,
  /** Extracted or pasted text of one document. */
  documentChars: 2_000_000,
  /** A document's title. */
  titleChars: 300,
  /** Authors of a document, and the length of each name. */
  authors: 50,
  authorChars: 200,
  /**
   * Values (array items and object members, nested ones included) in one input. Above the
   * largest valid input: a remember call of 64 changes, each with 16 KiB of data, holds about
   * 530,000.
   */
  inputValues: 1_048_576,
} as const;
