/**
 * Summaries for people: one line per spec, shown in a pack's preview and in refusals.
 */
import { orList } from './checked.ts';
import type { CodecSpec, DecimalOptions } from './spec.ts';

function decimalLimits(s: DecimalOptions): string[] {
  const parts: string[] = [];
  if (s.maxScale !== undefined)
    parts.push(`at most ${s.maxScale} decimal place${s.maxScale === 1 ? '' : 's'}`);
  if (s.min !== undefined && s.max !== undefined) parts.push(`${s.min} to ${s.max}`);
  else if (s.min !== undefined) parts.push(`at least ${s.min}`);
  else if (s.max !== undefined) parts.push(`at most ${s.max}`);
  return parts;
}

const withLimits = (head: string, limits: string[]) =>
  limits.length ? `${head}, ${limits.join(', ')}` : head;

/**
 * A one-line description of a spec for people.
 *
 * @example
 * describeCodec({ type: 'list', of: { type: 'language' }, maxItems: 5 }) // 'list of up to 5 × BCP 47 language tag'
 */
export function describeCodec(spec: CodecSpec): string {
  switch (spec.type) {
    case 'text':
      return withLimits(`text, at most ${spec.maxLength} characters`, [
        ...(spec.minLength ? [`at least ${spec.minLength}`] : []),
        ...(spec.pattern ? [`matching ${spec.pattern}`] : []),
      ]);
    case 'integer': {
      const range =
        spec.min !== undefined && spec.max !== undefined
          ? [`${spec.min} to ${spec.max}`]
          : spec.min !== undefined
            ? [`at least ${spec.min}`]
            : spec.max !== undefined
              ? [`at most ${spec.max}`]
              : [];
      return withLimits(spec.big ? 'integer of any size (digits as a string past ±2^53)' : 'integer', range);
    }
    case 'decimal':
      return withLimits('exact decimal as a string (scale kept, e.g. "1.10")', decimalLimits(spec));
    case 'quantity':
      return withLimits(
        `quantity: exact decimal value + ${spec.units ? `unit (${spec.units.join(', ')})` : 'UCUM unit'}`,
        decimalLimits(spec),
      );
    case 'date':
      return spec.partial === false ? 'date YYYY-MM-DD' : 'date YYYY-MM-DD, YYYY-MM or YYYY';
    case 'money':
      return withLimits(
        `money: exact decimal amount + ${spec.currencies ? `currency (${spec.currencies.join(', ')})` : 'ISO 4217 currency'}`,
        decimalLimits(spec),
      );
    case 'currency':
      return spec.currencies ? `ISO 4217 currency (${spec.currencies.join(', ')})` : 'ISO 4217 currency code';
    case 'language':
      return 'BCP 47 language tag';
    case 'doi':
      return 'DOI (10.NNNN/suffix, stored lowercase)';
    case 'url':
      return 'http(s) URL';
    case 'enum':
      return `one of: ${spec.values.join(', ')}`;
    case 'ref':
      return `reference to a ${orList(spec.kinds)} (kind:slug)`;
    case 'list': {
      const count = spec.minItems ? `${spec.minItems}–${spec.maxItems}` : `up to ${spec.maxItems}`;
      return `list of ${count}${spec.unique ? ' distinct' : ''} × ${describeCodec(spec.of)}`;
    }
    case 'object':
      return `object { ${Object.keys(spec.fields)
        .sort()
        .map((n) => `${n}${spec.fields[n]!.required ? '' : '?'}: ${describeCodec(spec.fields[n]!.codec)}`)
        .join('; ')} }`;
  }
}
