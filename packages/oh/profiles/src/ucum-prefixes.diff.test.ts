/**
 * Differential test for units.ts's one deep import: `@lhncbc/ucum-lhc/source-cjs/prefixTables.js`,
 * the library's prefix table, which its entry does not export. units.ts asks it whether the start
 * of a unit is a prefix, to refuse a prefix on a non-metric unit (`kmin`, `k[in_i]`).
 *
 * The table is compared with what the package's public entry says, on every one- and two-letter
 * candidate: a candidate is a prefix exactly when the public validator accepts it in front of an
 * atom, where the candidate plus the atom is not a code of its own (`lm`, lumen; `kg`, which LOINC
 * adds to the table) nor a one-letter prefix before one (`k` + `lm`). An upgrade that moves, renames or changes the internal
 * table, or fills it differently, makes units.ts disagree with the library here.
 */
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { unitProblem } from './units.ts';

interface UcumEntry {
  UcumLhcUtils: {
    getInstance(): { validateUnitString(unit: string, suggest: boolean): { status: string } };
  };
  UnitTables: { getInstance(): { getUnitByCode(code: string): unknown } };
}

// The public entry only (`main` of the package).
const ucum = createRequire(import.meta.url)('@lhncbc/ucum-lhc') as UcumEntry;
const validator = ucum.UcumLhcUtils.getInstance();
const atoms = ucum.UnitTables.getInstance();

const LETTERS = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'];
// UCUM's prefixes are one or two letters (`k`, `da`, `Ki`).
const CANDIDATES = [...LETTERS, ...LETTERS.flatMap((a) => LETTERS.map((b) => a + b))];

const isAtom = (code: string) => Boolean(atoms.getUnitByCode(code));
/** Whether `candidate + atom` can only be read as a prefix on `atom`. */
const unambiguous = (candidate: string, atom: string) =>
  !isAtom(candidate + atom) && !(candidate.length === 2 && isAtom(candidate.slice(1) + atom));
/** The public API's answer: the library accepts `candidate` in front of `atom` as a prefix. */
const publicPrefix = (candidate: string, atom: string) =>
  validator.validateUnitString(candidate + atom, false).status === 'valid';

describe('UCUM prefixes (deep import of ucum-lhc prefixTables.js) against the public validator', () => {
  // The library writes its parser's failures to console.log.
  beforeAll(() => void vi.spyOn(console, 'log').mockImplementation(() => undefined));
  afterAll(() => vi.restoreAllMocks());

  it.each(['min', '[in_i]'])(
    'refuses a prefix on the non-metric "%s" exactly for the prefixes the public validator accepts',
    (atom) => {
      const prefixes: string[] = [];
      let compared = 0;
      for (const candidate of CANDIDATES) {
        if (!unambiguous(candidate, atom)) continue;
        compared++;
        const expected = publicPrefix(candidate, atom);
        if (expected) prefixes.push(candidate);
        const problem = unitProblem(candidate + atom);
        // Ours refuses with the prefix rule where the library saw a prefix, and never elsewhere.
        expect(
          problem?.includes(`the prefix "${candidate}" cannot stand on "${atom}"`) ?? false,
          candidate,
        ).toBe(expected);
      }
      expect(compared).toBeGreaterThan(2_700);
      // UCUM's 20 decimal prefixes and the four binary ones.
      expect(prefixes.sort()).toEqual(
        ['Y', 'Z', 'E', 'P', 'T', 'G', 'M', 'k', 'h', 'da', 'd', 'c', 'm', 'u', 'n', 'p', 'f', 'a', 'z', 'y']
          .concat(['Ki', 'Mi', 'Gi', 'Ti'])
          .sort(),
      );
    },
  );

  it('accepts a prefix on a metric unit exactly where the public validator does', () => {
    let accepted = 0;
    for (const candidate of CANDIDATES) {
      if (!unambiguous(candidate, 'g')) continue;
      const expected = publicPrefix(candidate, 'g');
      if (expected) accepted++;
      expect(unitProblem(`${candidate}g`) === null, candidate).toBe(expected);
    }
    // 16 of the 24: `kg`, `mg` and six more are codes of their own in the library's table (LOINC
    // adds them), so they are left out above.
    expect(accepted).toBe(16);
  });
});
