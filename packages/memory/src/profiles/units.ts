/**
 * A small validator for UCUM case-sensitive unit expressions (https://ucum.org/ucum).
 *
 * Why not `@lhncbc/ucum-lhc`: it drags in CoffeeScript, CSV and XML tooling and a large unit
 * database to answer what, for a vocabulary profile, is only "is this a sensible unit string?".
 * This follows UCUM's grammar (products `.`, quotients `/`, integer exponents, parentheses,
 * `{annotations}`, prefixes on metric units only) over an allow-list of the atoms research and
 * finance records use. Units are kept exactly as written: UCUM is case-sensitive and has one
 * spelling per unit, so there is nothing to normalise.
 */

/** Atoms that take a metric prefix (`mg`, `kPa`, `µ` spelled `u` as UCUM does). */
// prettier-ignore
const METRIC_ATOMS = [
  'm', 's', 'g', 'rad', 'K', 'C', 'cd', 'mol', 'sr',
  'Hz', 'N', 'Pa', 'J', 'W', 'A', 'V', 'F', 'Ohm', 'S', 'Wb', 'Cel', 'T', 'H', 'lm', 'lx',
  'Bq', 'Gy', 'Sv', 'l', 'L', 'ar', 't', 'bar', 'u', 'eV', 'atm', 'kat', 'U', 'osm', 'eq',
  '[iU]', '[IU]', 'B', 'B[SPL]', 'B[V]', 'B[W]', 'bit', 'By', 'Bd', 'cal', 'Ci', 'R', 'gf',
  'dyn', 'erg', 'P', 'St', 'G', 'Mx', 'm[Hg]', 'm[H2O]', '[car_m]',
] as const;

/** Atoms that take no prefix. */
// prettier-ignore
const PLAIN_ATOMS = [
  '10*', '10^', '%', '[ppth]', '[ppm]', '[ppb]', '[pptr]', '[pi]',
  'min', 'h', 'd', 'wk', 'mo', 'mo_j', 'mo_g', 'a', 'a_j', 'a_g', 'a_t',
  'deg', "'", "''", 'gon', '[pH]', '[degF]', '[degR]',
  '[in_i]', '[ft_i]', '[yd_i]', '[mi_i]', '[nmi_i]', '[kn_i]', '[sin_i]', '[sft_i]', '[syd_i]',
  '[cin_i]', '[cft_i]', '[acr_us]', '[lb_av]', '[oz_av]', '[ston_av]', '[gr]', '[lton_av]',
  '[gal_us]', '[qt_us]', '[pt_us]', '[foz_us]', '[cup_us]', '[tbs_us]', '[tsp_us]', '[bbl_us]',
  '[gal_br]', '[pt_br]', '[psi]', '[HP]', '[Btu]', '[drp]', '[mesh_i]', '[hp_X]', '[hp_C]',
  '[CFU]', '[PFU]', '[arb\'U]', '[USP\'U]', '[beth\'U]', '[ka\'U]', '[knk\'U]', '[todd\'U]',
] as const;

/** Longest first, so `da` wins over `d` and `Ki` over nothing. */
// prettier-ignore
const PREFIXES = [
  'da', 'Ki', 'Mi', 'Gi', 'Ti',
  'Y', 'Z', 'E', 'P', 'T', 'G', 'M', 'k', 'h', 'd', 'c', 'm', 'u', 'n', 'p', 'f', 'a', 'z', 'y',
] as const;

const metric = new Set<string>(METRIC_ATOMS);
const plain = new Set<string>(PLAIN_ATOMS);

export const UNIT_MAX_LENGTH = 64;

function isKnownAtom(symbol: string): boolean {
  if (metric.has(symbol) || plain.has(symbol)) return true;
  for (const p of PREFIXES) {
    if (symbol.length > p.length && symbol.startsWith(p) && metric.has(symbol.slice(p.length))) return true;
  }
  return false;
}

/**
 * `null` when `unit` is a valid UCUM-ish unit expression, else why not.
 *
 * @example
 * unitProblem('mg/dL') // null
 * unitProblem('kg.m2.s-2') // null
 * unitProblem('furlongs') // 'unknown unit "furlongs" …'
 */
export function unitProblem(unit: string): string | null {
  if (unit.length === 0) return 'a unit cannot be empty (use "1" for a dimensionless quantity)';
  if (unit.length > UNIT_MAX_LENGTH) return `a unit is at most ${UNIT_MAX_LENGTH} characters`;
  if (!/^[!-~]+$/.test(unit)) return `unit "${unit}" has spaces or non-ASCII characters (UCUM spells µ as u)`;
  const parser = new UnitParser(unit);
  const problem = parser.term(0) ?? (parser.pos < unit.length ? parser.unexpected() : null);
  return problem;
}

class UnitParser {
  pos = 0;
  constructor(private readonly src: string) {}

  unexpected(): string {
    return `unit "${this.src}": unexpected "${this.src[this.pos] ?? ''}" at position ${this.pos + 1}`;
  }

  term(depth: number): string | null {
    if (depth > 4) return `unit "${this.src}" nests parentheses too deeply`;
    // A leading solidus is UCUM's way to write a pure reciprocal ("/min").
    if (this.src[this.pos] === '/') this.pos++;
    for (;;) {
      const problem = this.component(depth);
      if (problem) return problem;
      const op = this.src[this.pos];
      if (op !== '.' && op !== '/') return null;
      this.pos++;
    }
  }

  component(depth: number): string | null {
    const ch = this.src[this.pos];
    if (ch === undefined) return `unit "${this.src}" ends where a unit was expected`;
    if (ch === '(') {
      this.pos++;
      const problem = this.term(depth + 1);
      if (problem) return problem;
      if (this.src[this.pos] !== ')') return `unit "${this.src}": missing ")"`;
      this.pos++;
      return null;
    }
    if (ch === '{') return this.annotation();
    // A simple unit runs up to the next operator, parenthesis or annotation; brackets inside
    // atoms such as `[in_i]` or `mm[Hg]` never contain those characters.
    const start = this.pos;
    while (this.pos < this.src.length && !'./(){}'.includes(this.src[this.pos]!)) this.pos++;
    const run = this.src.slice(start, this.pos);
    if (run === '') return this.unexpected();
    const m = /^(.*?)([+-]?\d+)?$/.exec(run)!;
    const symbol = m[1]!;
    const exponent = m[2];
    if (symbol === '') {
      // A bare integer factor such as `1` or `100`; a sign makes no sense there.
      if (!/^\d{1,10}$/.test(run)) return `unit "${this.src}": "${run}" is not a unit`;
    } else {
      if (!isKnownAtom(symbol)) {
        return `unknown unit "${symbol}" in "${this.src}" (expected a UCUM unit such as mg, kg.m2, mmol/L, %, 1 or {count})`;
      }
      if (exponent !== undefined && !/^[+-]?\d{1,2}$/.test(exponent)) {
        return `unit "${this.src}": exponent "${exponent}" is out of range`;
      }
    }
    if (this.src[this.pos] === '{') return this.annotation();
    return null;
  }

  annotation(): string | null {
    const end = this.src.indexOf('}', this.pos);
    if (end < 0) return `unit "${this.src}": missing "}"`;
    const body = this.src.slice(this.pos + 1, end);
    if (body.includes('{')) return `unit "${this.src}": annotations cannot nest`;
    this.pos = end + 1;
    return null;
  }
}
