/**
 * UCUM units (https://ucum.org), checked by the U.S. National Library of Medicine's
 * implementation, `@lhncbc/ucum-lhc`, against the full UCUM table. Its run of the UCUM functional
 * tests (units.test.ts) is the evidence: all 490 valid units accepted, all 40 invalid refused.
 *
 * Units are kept exactly as written: UCUM is case-sensitive and has one spelling per unit, so
 * there is nothing to normalise, and a value is never converted.
 *
 * Two rules are added around the library. Before it: the string is printable ASCII with no
 * spaces, because the library trims what it is given (" mg" would pass as "mg"). After it: a
 * prefix stands only on a metric unit (UCUM §2.3, "The Predicate 'Metric'"); the library accepts
 * `kmin` or `k[in_i]`, which UCUM refuses.
 *
 * The library is loaded on the first check, not on import: it costs about 30 ms and 15 MiB of
 * resident memory to build its tables (measured on Node 24: ~10 ms to require, ~20 ms for the
 * first validation; +2.7 MiB heap after GC), which the processes that never check a unit skip.
 */
import { createRequire } from 'node:module';

const UNIT_MAX_LENGTH = 64;

/** A unit atom of the library's table. */
interface UcumUnit {
  name_: string;
  isBase_: boolean;
  isMetric_: boolean;
  /** `LOINC` for the compound codes LOINC adds to the table, e.g. `mg/m2`. */
  source_: string | null;
}

/** What is used of `@lhncbc/ucum-lhc` (the package ships no types). */
interface Ucum {
  validate(unit: string): { status: 'valid' | 'invalid' | 'error'; msg: string[] };
  unitByCode(code: string): UcumUnit | null | undefined;
  isPrefix(code: string): boolean;
}

let ucum: Ucum | undefined;

function loadUcum(): Ucum {
  if (ucum) return ucum;
  const require = createRequire(import.meta.url);
  const { UcumLhcUtils, UnitTables } = require('@lhncbc/ucum-lhc') as {
    UcumLhcUtils: {
      getInstance(): { validateUnitString(unit: string, suggest: boolean): ReturnType<Ucum['validate']> };
    };
    UnitTables: { getInstance(): { getUnitByCode(code: string): UcumUnit | null | undefined } };
  };
  // The prefix table is not exported from the package's entry; the same module instance is
  // reached by its path (the package has no `exports` map), filled once the tables are built.
  const { PrefixTables } = require('@lhncbc/ucum-lhc/source-cjs/prefixTables.js') as {
    PrefixTables: { getInstance(): { isDefined(code: string): boolean } };
  };
  const utils = UcumLhcUtils.getInstance();
  const units = UnitTables.getInstance();
  const prefixes = PrefixTables.getInstance();
  return (ucum = {
    validate: (unit) => utils.validateUnitString(unit, false),
    unitByCode: (code) => units.getUnitByCode(code),
    isPrefix: (code) => prefixes.isDefined(code),
  });
}

/**
 * `null` when `unit` is a valid UCUM unit expression (case-sensitive codes), else why not, in
 * words that name the unit.
 *
 * @example
 * unitProblem('mg/dL') // null
 * unitProblem('[in_i\'Hg]') // null
 * unitProblem('furlongs') // '"furlongs" is not a UCUM unit (…)'
 */
export function unitProblem(unit: string): string | null {
  if (unit.length === 0) return 'a unit cannot be empty (use "1" for a dimensionless quantity)';
  if (unit.length > UNIT_MAX_LENGTH) return `a unit is at most ${UNIT_MAX_LENGTH} characters`;
  if (!/^[!-~]+$/.test(unit)) return `unit "${unit}" has spaces or non-ASCII characters (UCUM spells µ as u)`;
  const lib = loadUcum();
  const result = quietly(() => lib.validate(unit));
  if (result.status !== 'valid') return refusal(unit, result.msg);
  return prefixProblem(unit, lib);
}

/**
 * The library writes to `console.log` when its parser throws (on `()` or `{|}1`, for example); a
 * value check must not write to the server's output. The call is synchronous, so nothing else
 * runs while the logger is replaced.
 */
function quietly<T>(fn: () => T): T {
  const log = console.log;
  console.log = () => undefined;
  try {
    return fn();
  } finally {
    console.log = log;
  }
}

const EXAMPLES = 'such as mg, kg.m2, mmol/L, %, 1 or {count}; UCUM codes are case-sensitive';

/** The library's explanation, kept when it is in plain words, after our own sentence. */
function refusal(unit: string, messages: readonly string[]): string {
  const details = messages
    .flatMap((m) => m.split('\n'))
    // "->x<-" is how the library points at a character; a quoted "x" says the same.
    .map((m) => m.replace(/\s*->(.*?)<-\s*/g, (_all, part: string) => ` "${part.trim()}" `))
    .map((m) => m.replace(/\s+/g, ' ').replace(/ \./g, '.').trim())
    .map((m) => m.replace(/^.*? is not a valid (UCUM code|unit)\.\s*/, ''))
    // Internal errors and placeholder names of its parser are no help to a person.
    .filter(
      (m) => m !== '' && !/placeholder|Cannot read|is not a function|No alternatives were found/i.test(m),
    );
  const detail = details.length ? `: ${details.join(' ')}` : ` (expected a UCUM unit ${EXAMPLES})`;
  return `"${unit}" is not a UCUM unit${detail}`;
}

/**
 * UCUM puts prefixes on metric units only. Each simple unit of the (already valid) expression is
 * split as the library splits it, a one-letter prefix tried before a two-letter one.
 */
function prefixProblem(unit: string, lib: Ucum): string | null {
  // Annotations may hold any printable character, operators included; they name no unit.
  const bare = unit.replace(/\{[^{}]*\}/g, '');
  // Simple units lie between operators and parentheses; a bracketed atom such as `B[10.nV]`
  // may contain a dot.
  for (const term of bare.match(/(?:\[[^\]]*\]|[^./()[\]])+/g) ?? []) {
    if (/^\d+$/.test(term) || lib.unitByCode(term)) continue;
    // Without its exponent (`m2`, `10*-3`, `[ft_i]3`).
    const symbol = /^(.*?[^\d+-])[+-]?\d*$/.exec(term)?.[1] ?? term;
    if (lib.unitByCode(symbol)) continue;
    for (const length of [1, 2]) {
      const [prefix, code] = [symbol.slice(0, length), symbol.slice(length)];
      const atom = lib.unitByCode(code);
      // As the library does, compound codes from LOINC never take a prefix.
      if (!lib.isPrefix(prefix) || !atom || atom.source_ === 'LOINC') continue;
      if (atom.isBase_ || atom.isMetric_) break;
      return `unit "${unit}": the prefix "${prefix}" cannot stand on "${code}" (${atom.name_}); UCUM allows prefixes only on metric units`;
    }
  }
  return null;
}
