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
 * target that is not in the document's reviewed knowledge nor in the same decision (`inView`
 * holds both). A record may name itself.
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
      message: `${r.link.to} is not in this document's reviewed knowledge or in this decision: accept it first, or add it here`,
    }));
}

/**
 * The circles a group's accept would close: a record of the group whose links lead, through other
 * records (of the group, or in view and not replaced by it), back to itself. A record naming
 * itself is no circle. Each circle is named once, on the first record of the group in it, at the
 * field whose reference starts it (shortest circle first).
 *
 * @example
 * cycleIssues([], [{ name: 'claim:a', refs: [→ claim:b] }, { name: 'claim:b', refs: [→ claim:a] }])
 * // [{ record: 0, issue: { path: ['fields', 'restsOn'], message: 'claim:a would rest on itself: claim:a → claim:b → claim:a; …' } }]
 */
export function cycleIssues(
  view: ReadonlyArray<{ name: string; links: readonly Link[] }>,
  group: ReadonlyArray<{ name: string; refs: readonly ReferenceLink[] }>,
): Array<{ record: number; issue: LinkIssue }> {
  const next = new Map<string, string[]>();
  const targets = (name: string, links: readonly Link[]) =>
    next.set(
      name,
      [...new Set(links.map((l) => l.to))].filter((to) => to !== name),
    );
  for (const r of view) targets(r.name, r.links);
  for (const r of group)
    targets(
      r.name,
      r.refs.map((ref) => ref.link),
    );

  const named = new Set<string>();
  const out: Array<{ record: number; issue: LinkIssue }> = [];
  group.forEach((record, index) => {
    if (named.has(record.name)) return;
    // Breadth first from the record, so the circle named is a shortest one.
    const from = new Map<string, string>();
    const queue = [record.name];
    let closing: string | undefined;
    for (let name = queue.shift(); name !== undefined && closing === undefined; name = queue.shift()) {
      for (const to of next.get(name) ?? []) {
        if (to === record.name) {
          closing = name;
          break;
        }
        if (from.has(to)) continue;
        from.set(to, name);
        queue.push(to);
      }
    }
    if (closing === undefined) return;
    const between: string[] = [];
    for (let n = closing; n !== record.name; n = from.get(n) ?? record.name) between.unshift(n);
    const path = [record.name, ...between, record.name];
    for (const n of path) named.add(n);
    const first = record.refs.find((r) => r.link.to === path[1])!;
    out.push({
      record: index,
      issue: {
        path: ['fields', ...first.path],
        message: `${record.name} would rest on itself: ${path.join(' → ')}; a reviewed record cannot depend on itself through others`,
      },
    });
  });
  return out;
}
