/**
 * The packs that ship with the package, loaded (and digest-checked) from `packs/*.json` on
 * first use.
 */
import financeJson from './packs/finance.json' with { type: 'json' };
import languageJson from './packs/language.json' with { type: 'json' };
import researchJson from './packs/research.json' with { type: 'json' };
import { codecOfCheckedSpec } from './codecs/index.ts';
import type { CodecSpec } from './codecs/index.ts';
import { ProfileError } from './errors.ts';
import { loadPack, validateRecord } from './pack.ts';
import type { Pack, PackExample } from './pack.ts';
import type { JsonValue } from '@oh/schema';

const SHIPPED: Readonly<Record<string, unknown>> = {
  research: researchJson,
  language: languageJson,
  finance: financeJson,
};

const loaded = new Map<string, Pack>();

export interface PackSummary {
  name: string;
  version: string;
  digest: string;
  title: string;
  description: string;
}

export interface PackPreview extends PackSummary {
  kinds: Array<{
    name: string;
    description: string;
    /** Required fields first, then optional ones; each group by name. */
    fields: Array<{
      name: string;
      description: string;
      required: boolean;
      codec: { summary: string; spec: CodecSpec };
    }>;
    relations: Array<{ name: string; to: string[]; field: string; description: string }>;
  }>;
  /** A record that validates against `kind`, in canonical form. */
  example: { kind: string; fields: Record<string, JsonValue> };
}

/**
 * The shipped packs, by name.
 *
 * @example
 * listPacks().map((p) => p.name) // ['finance', 'language', 'research']
 */
export function listPacks(): PackSummary[] {
  return Object.keys(SHIPPED)
    .sort()
    .map((name) => summary(getPack(name)));
}

/**
 * A shipped pack, loaded and verified. Throws `ProfileError` (`not_found`) for an unknown name.
 *
 * @example
 * validateRecord(getPack('research'), 'sample', { size: 120, population: 'adults', study: 'study:s1' })
 */
export function getPack(name: string): Pack {
  const cached = loaded.get(name);
  if (cached) return cached;
  if (!Object.hasOwn(SHIPPED, name)) {
    throw new ProfileError(
      'not_found',
      `no profile pack "${name}" (packs: ${Object.keys(SHIPPED).sort().join(', ')})`,
    );
  }
  const pack = loadPack(SHIPPED[name]);
  loaded.set(name, pack);
  return pack;
}

/**
 * What a person needs to decide whether to install a pack: its kinds, their fields with a
 * readable codec summary and the spec itself, relations, and an example record that validates.
 *
 * @example
 * const preview = previewPack('finance');
 * preview.example // { kind: 'metric', fields: { value: { amount: '94930000000.00', currency: 'USD' }, … } }
 */
export function previewPack(pack: string | Pack): PackPreview {
  const p = typeof pack === 'string' ? getPack(pack) : pack;
  const example = exampleOf(p, p.example);
  return {
    ...summary(p),
    kinds: Object.keys(p.kinds)
      .sort()
      .map((name) => {
        const kind = p.kinds[name]!;
        const fields = Object.keys(kind.fields)
          .map((fieldName) => {
            const field = kind.fields[fieldName]!;
            return {
              name: fieldName,
              description: field.description,
              required: field.required,
              codec: { summary: codecOfCheckedSpec(field.codec).summary, spec: field.codec },
            };
          })
          .sort((a, b) => Number(b.required) - Number(a.required) || (a.name < b.name ? -1 : 1));
        const relations = Object.keys(kind.relations)
          .sort()
          .map((relName) => {
            const rel = kind.relations[relName]!;
            return { name: relName, to: [...rel.to], field: rel.field, description: rel.description };
          });
        return { name, description: kind.description, fields, relations };
      }),
    example,
  };
}

function summary(p: Pack): PackSummary {
  return { name: p.name, version: p.version, digest: p.digest, title: p.title, description: p.description };
}

function exampleOf(p: Pack, example: PackExample): PackPreview['example'] {
  const r = validateRecord(p, example.kind, example.fields);
  // loadPack already refused a pack whose example does not validate.
  if (!r.ok) throw new ProfileError('integrity', `pack ${p.name}: its example does not validate`, r.errors);
  return { kind: example.kind, fields: r.value };
}
