/**
 * Quantity: an exact decimal value with a UCUM unit, e.g. `{ "value": "12.5", "unit": "mg/dL" }`.
 */
import type { RawIssue } from '../errors.ts';
import { unitProblem } from '../units.ts';
import { checkParts, pass, typeOf } from './checked.ts';
import type { Checked } from './checked.ts';
import { checkDecimal } from './numbers.ts';
import type { Quantity, QuantitySpec } from './spec.ts';

export function checkQuantity(input: unknown, spec: QuantitySpec): Checked<Quantity> {
  const parts = checkParts(input, ['value', 'unit'], 'such as {"value":"12.5","unit":"mg"}');
  if (!parts.ok) return parts;
  const issues: RawIssue[] = [];
  const value = checkDecimal(parts.value.value, spec);
  if (!value.ok) issues.push(...value.issues.map((i) => ({ ...i, path: ['value', ...i.path] })));
  const unit = parts.value.unit;
  if (typeof unit !== 'string')
    issues.push({ path: ['unit'], message: `expected a UCUM unit such as "mg", got ${typeOf(unit)}` });
  else if (spec.units && !spec.units.includes(unit)) {
    issues.push({ path: ['unit'], message: `unit "${unit}" is not one of: ${spec.units.join(', ')}` });
  } else {
    const problem = unitProblem(unit);
    if (problem) issues.push({ path: ['unit'], message: problem });
  }
  if (issues.length || !value.ok) return { ok: false, issues };
  return pass({ unit: unit as string, value: value.value });
}
