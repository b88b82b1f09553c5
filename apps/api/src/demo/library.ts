/**
 * The demo library (DEMO on): its people and documents are data (library.json); this gives them
 * their types and the names the seed and the tests use.
 */
import demo from './library.json' with { type: 'json' };

export interface DemoDocument {
  id: string;
  ownerId: string;
  title: string;
  authors: string[];
  abstract: string;
  /** Paragraphs joined by a blank line. */
  text: string;
  sharedWith?: string[];
  published?: boolean;
}

interface DemoUser {
  id: string;
  name: string;
}

const [owner, ...others] = demo.users;
if (!owner) throw new Error('demo/library.json names no users');

/** The people of the demo; the first owns the reef document and the demo run. */
export const DEMO_USERS: readonly [DemoUser, ...DemoUser[]] = [owner, ...others];

export const REEF_DOCUMENT_ID = demo.reefDocumentId;

/** The passage the reviewed finding cites; it occurs verbatim in the reef document's text. */
export const BLEACHING_PASSAGE = demo.bleachingPassage;

export const DEMO_DOCUMENTS: DemoDocument[] = demo.documents.map(({ paragraphs, ...d }) => ({
  ...d,
  text: paragraphs.join('\n\n'),
}));
