/**
 * Vocabulary packs: canonical-JSON documents that name a profile's kinds, their fields and value
 * codecs, and the relations between kinds. A pack is self-checking: its `digest` is the SHA-256
 * of the canonical JSON of the pack without the digest, and its `example` must validate.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { KIND_RE } from '@oh/schema';
import { canonicalJson } from './canonical-json.ts';
import type { JsonValue } from '@oh/schema';
import { MAX_JSON_DEPTH, fieldsSchema, nestsDeeperThan, objectImpl, specIssues } from './codecs/index.ts';
import type { CodecSpec, FieldSpec } from './codecs/index.ts';
import { ProfileError, formatIssues, fromZod, toIssues, toNormalizations } from './errors.ts';
import type { PathSegment, ProfileIssue, ProfileNormalization, RawIssue } from './errors.ts';

export interface RelationSpec {
  /** The kinds at the other end; the same set as the `ref` codec of `field`. */
  to: readonly string[];
  /** The field of this kind that holds the reference(s). */
  field: string;
  description: string;
}

export interface KindSpec {
  description: string;
  fields: Readonly<Record<string, FieldSpec>>;
  relations: Readonly<Record<string, RelationSpec>>;
}

export interface PackExample {
  kind: string;
  fields: Readonly<Record<string, JsonValue>>;
}

/** A pack as written by hand, before it is sealed with its digest. */
export interface PackDefinition {
  /** `[a-z][a-z0-9-]{0,31}`, e.g. `research`. */
  name: string;
  /** Semantic version (semver.org 2.0.0). */
  version: string;
  title: string;
  description: string;
  kinds: Readonly<Record<string, KindSpec>>;
  /** One record the preview shows; it must validate against its kind. */
  example: PackExample;
}

/** A loaded, checked pack: deep-frozen, its digest verified. */
export interface Pack extends PackDefinition {
  /** Lowercase hex SHA-256 of the canonical JSON of the pack without `digest`. */
  readonly digest: string;
}

export type RecordResult =
  | {
      ok: true;
      value: Record<string, JsonValue>;
      /** Values stored in another form than written (`en-UK` → `en-GB`); absent when none. */
      normalized?: ProfileNormalization[];
    }
  | { ok: false; errors: ProfileIssue[] };

// https://semver.org/#is-there-a-suggested-regular-expression-regex-to-check-a-semver-string
const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;
const RELATION_RE = /^[a-z][a-z0-9_]{0,31}$/;
const DIGEST_RE = /^[0-9a-f]{64}$/;
const MAX_KINDS = 64;

const description = z.string().min(1).max(1_000);

const relationSchema = z.strictObject({
  to: z.array(z.string()).min(1),
  field: z.string(),
  description,
});

const kindSchema = z.strictObject({
  description,
  fields: fieldsSchema,
  relations: z.record(
    z.string().regex(RELATION_RE, 'a relation name is [a-z][a-z0-9_]{0,31}'),
    relationSchema,
  ),
});

const definitionShape = {
  name: z.string().regex(KIND_RE, 'a pack name is [a-z][a-z0-9-]{0,31}'),
  version: z.string().max(64).regex(SEMVER, 'expected a semantic version such as 1.2.0'),
  title: z.string().min(1).max(200),
  description,
  kinds: z.record(z.string().regex(KIND_RE, 'a kind name is [a-z][a-z0-9-]{0,31}'), kindSchema),
  example: z.strictObject({ kind: z.string(), fields: z.record(z.string(), z.unknown()) }),
};

const definitionSchema = z.strictObject(definitionShape);
const packSchema = z.strictObject({
  ...definitionShape,
  digest: z.string().regex(DIGEST_RE, 'a digest is 64 lowercase hex digits (SHA-256)'),
});

/**
 * The digest a pack must carry: lowercase hex SHA-256 of the canonical JSON (RFC 8785) of the
 * pack without its `digest` field.
 */
export function packDigest(pack: PackDefinition | Pack): string {
  const { digest: _digest, ...body } = pack as Pack;
  return createHash('sha256').update(canonicalJson(body), 'utf8').digest('hex');
}

/** Checks that need the whole pack: names, kind references, relations, the example. */
function meaningIssues(def: PackDefinition): ProfileIssue[] {
  const raw: RawIssue[] = [];
  const add = (path: PathSegment[], message: string) => raw.push({ path, message });
  const kindNames = Object.keys(def.kinds);
  const kinds = new Set(kindNames);
  if (kindNames.length === 0) add(['kinds'], 'a pack needs at least one kind');
  if (kindNames.length > MAX_KINDS) add(['kinds'], `a pack has at most ${MAX_KINDS} kinds`);
  for (const [kindName, kind] of Object.entries(def.kinds)) {
    const at = ['kinds', kindName];
    for (const [fieldName, field] of Object.entries(kind.fields)) {
      for (const i of specIssues(field.codec, kinds))
        add([...at, 'fields', fieldName, 'codec', ...i.path], i.message);
    }
    for (const [relName, rel] of Object.entries(kind.relations)) {
      const relAt = [...at, 'relations', relName];
      rel.to.forEach((k, i) => {
        if (!kinds.has(k)) add([...relAt, 'to', i], `no kind "${k}" in this pack`);
      });
      const field = kind.fields[rel.field];
      if (!field) {
        add([...relAt, 'field'], `kind ${kindName} has no field "${rel.field}"`);
        continue;
      }
      const refKinds = refKindsOf(field.codec);
      if (!refKinds) {
        add([...relAt, 'field'], `field "${rel.field}" is not a reference (a ref codec, or a list of one)`);
      } else if (refKinds.length !== rel.to.length || !rel.to.every((k) => refKinds.includes(k))) {
        add(
          [...relAt, 'to'],
          `[${rel.to.join(', ')}] differs from the kinds field "${rel.field}" refers to: [${refKinds.join(', ')}]`,
        );
      }
    }
  }
  const example = def.example;
  const exampleKind = def.kinds[example.kind];
  if (!exampleKind) add(['example', 'kind'], `no kind "${example.kind}" in this pack`);
  else if (raw.length === 0) {
    const impl = objectImpl(exampleKind.fields);
    const r = impl.check(example.fields);
    if (!r.ok) for (const i of r.issues) add(['example', 'fields', ...i.path], i.message);
    else {
      // The example is what people copy, so it is shown exactly as a stored record would be.
      const canonical = canonicalJson(impl.toJson(r.value));
      if (canonical !== canonicalJson(example.fields))
        add(['example', 'fields'], `not in canonical form; write ${canonical}`);
    }
  }
  return toIssues(raw);
}

function refKindsOf(spec: CodecSpec): readonly string[] | null {
  if (spec.type === 'ref') return spec.kinds;
  if (spec.type === 'list') return refKindsOf(spec.of);
  return null;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

function invalid(issues: ProfileIssue[], what: string): never {
  throw new ProfileError('invalid_input', `${what}:\n${formatIssues(issues)}`, issues);
}

/**
 * Check a pack (structure, meaning, digest) and return it deep-frozen. Refuses a malformed pack
 * with `ProfileError` (`invalid_input`) whose message and `issues` name each problem's path, and
 * a digest that does not match with `ProfileError` (`integrity`).
 *
 * @example
 * const pack = loadPack(JSON.parse(readFileSync('research.json', 'utf8')));
 * // throws: kinds.finding.fields.effect.codec.type: unknown codec "floatt" (known codecs: …)
 */
export function loadPack(json: unknown): Pack {
  if (nestsDeeperThan(json, MAX_JSON_DEPTH)) {
    invalid([{ path: '', message: `a pack nests at most ${MAX_JSON_DEPTH} levels deep` }], 'invalid pack');
  }
  const parsed = packSchema.safeParse(json);
  if (!parsed.success) invalid(fromZod(parsed.error), 'invalid pack');
  const pack = parsed.data as Pack;
  const issues = meaningIssues(pack);
  if (issues.length) invalid(issues, `invalid pack ${pack.name}`);
  const actual = packDigest(pack);
  if (actual !== pack.digest) {
    throw new ProfileError(
      'integrity',
      `pack ${pack.name}@${pack.version}: digest ${pack.digest} does not match its content (${actual})`,
      [{ path: 'digest', message: `expected ${actual}` }],
    );
  }
  const frozen = deepFreeze(structuredClone(pack));
  checkedPacks.add(frozen);
  return frozen;
}

/**
 * Seal a definition with its digest, checking it as `loadPack` would.
 *
 * @example
 * const pack = createPack({ name: 'mini', version: '1.0.0', title: 'Mini', description: '…', kinds, example });
 */
export function createPack(definition: PackDefinition): Pack {
  const parsed = definitionSchema.safeParse(definition);
  if (!parsed.success) invalid(fromZod(parsed.error), 'invalid pack definition');
  return loadPack({ ...parsed.data, digest: packDigest(parsed.data as PackDefinition) });
}

/** The canonical JSON text of a pack, as shipped in `packs/*.json`. */
export function packJson(pack: Pack): string {
  return canonicalJson(pack);
}

const checkedPacks = new WeakSet<Pack>();
const kindChecks = new WeakMap<Pack, Map<string, ReturnType<typeof objectImpl>>>();

/**
 * Validate a record's fields against a kind of a pack. Unknown fields are refused and required
 * ones enforced; on success `value` holds the fields in canonical encoded form (keys sorted), and
 * `normalized` lists each value stored in another form than written, with why. Paths (of errors
 * and normalisations alike) are relative to the fields, e.g. `effect.unit` or `versions.1.date`.
 *
 * @example
 * validateRecord(research, 'sample', { size: 120, population: 'adults 18–65' })
 * // { ok: true, value: { population: 'adults 18–65', size: 120 } }
 */
export function validateRecord(pack: Pack, kind: string, fields: unknown): RecordResult {
  // A pack that did not come from loadPack (a hand-built object) is checked once before use.
  const checked = checkedPacks.has(pack) ? pack : loadPack(pack);
  let byKind = kindChecks.get(pack);
  if (!byKind) kindChecks.set(pack, (byKind = new Map<string, ReturnType<typeof objectImpl>>()));
  let impl = byKind.get(kind);
  if (!impl) {
    const spec = Object.hasOwn(checked.kinds, kind) ? checked.kinds[kind] : undefined;
    if (!spec) {
      const known = Object.keys(checked.kinds).sort().join(', ');
      return {
        ok: false,
        errors: [{ path: '', message: `pack ${checked.name} has no kind "${kind}" (kinds: ${known})` }],
      };
    }
    byKind.set(kind, (impl = objectImpl(spec.fields)));
  }
  const r = impl.check(fields);
  if (!r.ok) return { ok: false, errors: toIssues(r.issues) };
  const value = impl.toJson(r.value) as Record<string, JsonValue>;
  return r.normalized ? { ok: true, value, normalized: toNormalizations(r.normalized) } : { ok: true, value };
}
