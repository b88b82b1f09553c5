/**
 * From a spec to its check: one case per codec type, and the two that hold other codecs (list
 * and object), which recurse through it.
 */
import type { JsonValue } from '@oh/schema';
import { canonicalJson } from '../canonical-json.ts';
import type { RawIssue, RawNormalization } from '../errors.ts';
import { fail, isPlainObject, pass, typeOf } from './checked.ts';
import type { Checked } from './checked.ts';
import { checkDate } from './date.ts';
import { checkDoi, checkUrl } from './doi-url.ts';
import { checkLanguage } from './language.ts';
import { checkCurrency, checkMoney } from './money.ts';
import { checkDecimal, checkInteger, integerToJson } from './numbers.ts';
import { checkQuantity } from './quantity.ts';
import type { CodecSpec, FieldSpec, ListSpec } from './spec.ts';
import { checkEnum, checkRef, checkText } from './text.ts';

export interface Impl {
  check(input: unknown): Checked<unknown>;
  /** From a checked value to JSON; only bigints differ. */
  toJson(value: unknown): JsonValue;
}

const identity = (value: unknown) => value as JsonValue;

export function implFor(spec: CodecSpec): Impl {
  switch (spec.type) {
    case 'text': {
      const pattern = spec.pattern === undefined ? undefined : new RegExp(`^(?:${spec.pattern})$`, 'u');
      return { check: (x) => checkText(x, spec, pattern), toJson: identity };
    }
    case 'integer':
      return { check: (x) => checkInteger(x, spec), toJson: integerToJson };
    case 'decimal':
      return { check: (x) => checkDecimal(x, spec), toJson: identity };
    case 'quantity':
      return { check: (x) => checkQuantity(x, spec), toJson: identity };
    case 'date':
      return { check: (x) => checkDate(x, spec), toJson: identity };
    case 'money':
      return { check: (x) => checkMoney(x, spec), toJson: identity };
    case 'currency':
      return { check: (x) => checkCurrency(x, spec), toJson: identity };
    case 'language':
      return { check: checkLanguage, toJson: identity };
    case 'doi':
      return { check: checkDoi, toJson: identity };
    case 'url':
      return { check: (x) => checkUrl(x, spec), toJson: identity };
    case 'enum':
      return { check: (x) => checkEnum(x, spec), toJson: identity };
    case 'ref':
      return { check: (x) => checkRef(x, spec), toJson: identity };
    case 'list':
      return listImpl(spec);
    case 'object':
      return objectImpl(spec.fields);
  }
}

function listImpl(spec: ListSpec): Impl {
  const item = implFor(spec.of);
  const range = `${spec.minItems ?? 0}–${spec.maxItems}`;
  return {
    check(input) {
      if (!Array.isArray(input)) return fail(`expected a list of ${range} items, got ${typeOf(input)}`);
      if (input.length > spec.maxItems) return fail(`at most ${spec.maxItems} items, got ${input.length}`);
      if (spec.minItems !== undefined && input.length < spec.minItems) {
        return fail(`at least ${spec.minItems} item${spec.minItems === 1 ? '' : 's'}, got ${input.length}`);
      }
      const issues: RawIssue[] = [];
      const normalized: RawNormalization[] = [];
      const values: unknown[] = [];
      input.forEach((x, i) => {
        const r = item.check(x);
        if (r.ok) {
          values.push(r.value);
          normalized.push(...(r.normalized ?? []).map((n) => ({ ...n, path: [i, ...n.path] })));
        } else issues.push(...r.issues.map((e) => ({ ...e, path: [i, ...e.path] })));
      });
      if (issues.length) return { ok: false, issues };
      if (spec.unique) {
        const seen = new Map<string, number>();
        values.forEach((v, i) => {
          const key = canonicalJson(item.toJson(v));
          const first = seen.get(key);
          if (first !== undefined) issues.push({ path: [i], message: `item ${i} repeats item ${first}` });
          else seen.set(key, i);
        });
        if (issues.length) return { ok: false, issues };
      }
      return pass(values, normalized);
    },
    toJson: (v) => (v as unknown[]).map((x) => item.toJson(x)),
  };
}

const MAX_UNKNOWN_REPORTED = 20;

/** Checks a JSON object against named fields; shared by the `object` codec and records. */
export function objectImpl(fields: Readonly<Record<string, FieldSpec>>): Impl {
  const names = Object.keys(fields).sort();
  const impls = new Map(names.map((n) => [n, implFor(fields[n]!.codec)]));
  return {
    check(input) {
      if (!isPlainObject(input))
        return fail(`expected an object with fields ${names.join(', ')}, got ${typeOf(input)}`);
      const issues: RawIssue[] = [];
      const unknown = Object.keys(input)
        .filter((key) => !impls.has(key))
        .sort();
      for (const key of unknown.slice(0, MAX_UNKNOWN_REPORTED)) {
        issues.push({ path: [key], message: `unknown field "${key}" (fields: ${names.join(', ')})` });
      }
      if (unknown.length > MAX_UNKNOWN_REPORTED) {
        issues.push({ path: [], message: `${unknown.length - MAX_UNKNOWN_REPORTED} more unknown fields` });
      }
      const out: Record<string, unknown> = {};
      const normalized: RawNormalization[] = [];
      for (const name of names) {
        // Own properties only: a field named like an Object.prototype member must not see it.
        const value = Object.hasOwn(input, name) ? input[name] : undefined;
        if (value === undefined) {
          if (fields[name]!.required) issues.push({ path: [name], message: 'required' });
          continue;
        }
        if (value === null) {
          issues.push({ path: [name], message: 'null is not a value; leave an optional field out instead' });
          continue;
        }
        const r = impls.get(name)!.check(value);
        if (r.ok) {
          out[name] = r.value;
          normalized.push(...(r.normalized ?? []).map((n) => ({ ...n, path: [name, ...n.path] })));
        } else issues.push(...r.issues.map((e) => ({ ...e, path: [name, ...e.path] })));
      }
      return issues.length ? { ok: false, issues } : pass(out, normalized);
    },
    toJson(v) {
      const value = v as Record<string, unknown>;
      const out: Record<string, JsonValue> = {};
      for (const name of names)
        if (value[name] !== undefined) out[name] = impls.get(name)!.toJson(value[name]);
      return out;
    },
  };
}
