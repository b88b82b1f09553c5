/**
 * The demo library (DEMO on): its people, documents, reviewed knowledge and chat run are data
 * (library.json); this gives them their types and the names the seed and the tests use.
 */
import type { Change } from '@oh/memory';
import { ownerInputs } from '@sponge/contract';
import type { ReviewDecideInput } from '@sponge/contract';
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

export const DEMO_DOCUMENTS: DemoDocument[] = demo.documents.map(({ paragraphs, ...d }) => ({
  ...d,
  text: paragraphs.join('\n\n'),
}));

/** A record of the reef document's reviewed knowledge, with the passage it cites and the reviewer's comment. */
interface DemoReview {
  name: string;
  text: string;
  fields: ReviewDecideInput['fields'];
  passage: string;
  comment: string;
}

/** The fields as review.decide takes them (its schema types them; the profile checks them later). */
const REVIEW_FIELDS = ownerInputs['review.decide'].shape.fields;
const PASSAGES: Record<string, string> = { survey: demo.surveyPassage, bleaching: demo.bleachingPassage };

/** In the order they are accepted: a record's reference fields name records reviewed already. */
export const DEMO_REVIEWS: DemoReview[] = demo.reviews.map((r) => {
  const passage = PASSAGES[r.passage];
  if (passage === undefined) throw new Error(`demo/library.json: no passage "${r.passage}"`);
  return { ...r, fields: REVIEW_FIELDS.parse(r.fields), passage };
});

/**
 * The demo run's steps: a message in its transcript, or its agent's remember call. The changes
 * are the store's to check, as any agent's are.
 */
export const DEMO_RUN = demo.run as ReadonlyArray<
  { say: { role: 'you' | 'agent'; text: string } } | { remember: Change[] }
>;
