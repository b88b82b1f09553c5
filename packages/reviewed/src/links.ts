/**
 * Links of a reviewed record (issue 18, SPEC §3): a profile field that references another record
 * (a `ref` codec, or a list of them, at any depth) becomes a `depends_on` link to it — a finding
 * depends on its study, a sample on its study, a correction on what it corrects. The pack names
 * each top-level reference field's relation (`from_study`, `corrects`…): a relation named like a
 * link of the record model (`supports`, `contradicts`) is that link, any other is `depends_on`,
 * and the relation is reported beside it.
 *
 * The links are derived from the validated fields, in the pack's field order, so the same fields
 * always give the same links and the same digest.
 */
import { LIMITS, LINK_RELS } from '@sponge/contract';
import type { JsonValue, Link } from '@oh/memory';
import type { CodecSpec, FieldSpec, Pack } from '@oh/profiles';

export interface ReferenceLink {
  link: Link;
  /** Where in the fields the reference is, e.g. `['study']` or `['reportedIn', 1]`. */
  path: Array<string | number>;
  /** The pack's name for the relation of a top-level field (null when it names none). */
  relation: string | null;
}

/**
 * The links a record's validated `fields` make, one per referenced record (the first field that
 * references it wins).
 *
 * @example
 * referenceLinks(research, 'finding', { statement: '…', study: 'study:s', sample: 'sample:n' })
 * // [{ link: { rel: 'depends_on', to: 'sample:n' }, path: ['sample'], relation: 'in_sample' },
 * //  { link: { rel: 'depends_on', to: 'study:s' }, path: ['study'], relation: 'from_study' }]
 */
export function referenceLinks(pack: Pack, kind: string, fields: Record<string, JsonValue>): ReferenceLink[] {
  const spec = Object.hasOwn(pack.kinds, kind) ? pack.kinds[kind] : undefined;
  if (!spec) return [];
  const relationOf = new Map(Object.entries(spec.relations).map(([name, r]) => [r.field, name]));
  const out: ReferenceLink[] = [];
  const seen = new Set<string>();
  const visit = (codec: CodecSpec, value: JsonValue | undefined, path: Array<string | number>) => {
    if (value === undefined || value === null) return;
    if (codec.type === 'ref' && typeof value === 'string') {
      if (seen.has(value)) return;
      seen.add(value);
      const relation = path.length === 1 ? (relationOf.get(String(path[0])) ?? null) : null;
      const rel = LINK_RELS.find((r) => r === relation) ?? 'depends_on';
      out.push({ link: { rel, to: value }, path, relation });
    } else if (codec.type === 'list' && Array.isArray(value)) {
      value.forEach((item, i) => visit(codec.of, item, [...path, i]));
    } else if (codec.type === 'object' && typeof value === 'object' && !Array.isArray(value)) {
      visitFields(codec.fields, value, path);
    }
  };
  const visitFields = (
    specs: Readonly<Record<string, FieldSpec>>,
    values: { [key: string]: JsonValue },
    path: Array<string | number>,
  ) => {
    for (const [name, field] of Object.entries(specs)) {
      if (Object.hasOwn(values, name)) visit(field.codec, values[name], [...path, name]);
    }
  };
  visitFields(spec.fields, fields, []);
  return out;
}

export interface LinkIssue {
  path: Array<string | number>;
  message: string;
}

/**
 * What is wrong with accepting a record with these links: more than a record may carry, or a
 * target that is not in the document's reviewed knowledge (`inView`). A record may name itself.
 */
export function linkIssues(name: string, refs: ReferenceLink[], inView: ReadonlySet<string>): LinkIssue[] {
  if (refs.length > LIMITS.linksPerRecord) {
    return [
      {
        path: ['fields'],
        message: `these fields reference ${refs.length} records; a reviewed record links to at most ${LIMITS.linksPerRecord}`,
      },
    ];
  }
  return refs
    .filter((r) => r.link.to !== name && !inView.has(r.link.to))
    .map((r) => ({
      path: ['fields', ...r.path],
      message: `${r.link.to} is not in this document's reviewed knowledge: accept it first`,
    }));
}
