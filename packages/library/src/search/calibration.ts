/**
 * What a search hit's score means, and when search says no (SPEC §6d), for one embedding model:
 * both measured on the library's relevance set (relevance/README.md, "Saying no, and what a score
 * means"), because a similarity means something only for the model that gave it.
 *
 * - `floor`: a passage found by meaning alone comes back only from this cosine similarity up. It is
 *   the lowest hundredth above every similarity the relevance set's queries about nothing reached
 *   (relevance/nothing.json), so those queries find nothing; on the 48 judged queries no floor from
 *   there up changes success@3 or MRR@10.
 * - The score: the chance that a reader asking the query judges the hit's document relevant,
 *   estimated by logistic regression on the hits of the 48 judged queries, from two things the
 *   hit carries: the share of the query's content words (by weight, termWeights) its document's
 *   best keyword passage holds, and its best passage's similarity. A score of 0.9 means: of the
 *   judged hits scored near 0.9, about 9 in 10 were relevant. The held-out queries check it.
 *
 * The relevance test refits both from the set and fails when they differ from the values here, so
 * a change to search that moves them is measured again, not carried over.
 */
export interface SearchCalibration {
  /** Similarity from which a passage found by meaning alone comes back; Infinity: never. */
  floor: number;
  /** The logistic model's weights: score = 1 / (1 + e^-(intercept + share·s + similarity·c)). */
  intercept: number;
  share: number;
  similarity: number;
}

/** Measured with the default local adapter (local-hash-v1, 256 dimensions) on 2026-12-06. */
export const LOCAL_CALIBRATION: SearchCalibration = {
  floor: 0.25,
  intercept: -7.85,
  share: 6.19,
  similarity: 17.28,
};

/**
 * For a model the relevance set was not measured with: the score is estimated from the words only
 * (the same regression without the similarity), since its similarities say nothing known about
 * relevance; a passage holding none of the query's words scores 0.01 however near in meaning.
 * Nothing comes back by meaning alone unless the operator gives the model a floor
 * (EMBEDDINGS_SIMILARITY_FLOOR, searchCalibration). Vectors still order what comes back. Measure
 * the model with the relevance figure and add its calibration to CALIBRATIONS.
 */
export const WORDS_ONLY_CALIBRATION: SearchCalibration = {
  floor: Infinity,
  intercept: -4.6,
  share: 6.69,
  similarity: 0,
};

/** The measured calibrations, by embedding adapter id. */
const CALIBRATIONS: ReadonlyMap<string, SearchCalibration> = new Map([
  ['local-hash-v1:256', LOCAL_CALIBRATION],
]);

/** The calibration measured for an adapter, or null when none was. */
export function calibrationFor(adapterId: string): SearchCalibration | null {
  return CALIBRATIONS.get(adapterId) ?? null;
}

/**
 * What search uses for an adapter, and what to warn of at start. A measured calibration wins over
 * a floor given (EMBEDDINGS_SIMILARITY_FLOOR): a similarity means something only for the model
 * that gave it, and a floor chosen for a cloud model would stay set when EMBEDDINGS_URL is taken
 * away. For a model without one, the words-only score with the floor given, or no floor at all.
 */
export function searchCalibration(
  adapterId: string,
  floor?: number,
): { calibration: SearchCalibration; warning: string | null } {
  const measured = calibrationFor(adapterId);
  if (measured)
    return {
      calibration: measured,
      warning:
        floor === undefined
          ? null
          : `EMBEDDINGS_SIMILARITY_FLOOR (${floor}) is not used: the floor of the embedding model ${adapterId} was measured (${measured.floor}, packages/library/src/relevance/README.md)`,
    };
  if (floor !== undefined) return { calibration: { ...WORDS_ONLY_CALIBRATION, floor }, warning: null };
  return {
    calibration: WORDS_ONLY_CALIBRATION,
    warning:
      `search has no similarity floor measured for the embedding model ${adapterId}, so it finds passages by their words only. ` +
      'To find them by meaning too, set EMBEDDINGS_SIMILARITY_FLOOR: the cosine similarity (0..1) from which a passage comes back by meaning alone. ' +
      'Measure it with `pnpm --filter @sponge/bench bench -- --only=relevance` run with the same EMBEDDINGS_* variables (it reports the floor above every similarity its queries about nothing reach), ' +
      "or start from 0.3 for OpenAI's text-embedding-3 models and raise it while searches for what your library does not hold still list passages with no word marked; " +
      'models differ widely (E5 places any two texts between 0.7 and 1), so a value fits only the model it was chosen for (docs/operations.md, "Search by meaning").',
  };
}

/** A hit's score (0..1, three decimals) from its share of the query's words and its similarity. */
export function hitScore(c: SearchCalibration, share: number, similarity: number): number {
  const z = c.intercept + c.share * share + c.similarity * Math.max(0, similarity);
  return Math.round(1000 / (1 + Math.exp(-z))) / 1000;
}
