/**
 * The IANA Language Subtag Registry (RFC 5646 §3), as the `language-subtag-registry` package ships
 * it (file date in its meta.json). Loaded on the first language check, not on import: parsing
 * and indexing the 1.1 MB registry takes about 30 ms and 3 MiB of heap (measured on Node 24).
 */
import { createRequire } from 'node:module';

export type SubtagType = 'language' | 'extlang' | 'script' | 'region' | 'variant';

export interface RegistryEntry {
  Type: SubtagType | 'grandfathered' | 'redundant';
  /** Set for subtags; `Tag` for grandfathered and redundant tags. */
  Subtag?: string;
  Tag?: string;
  Description: string[];
  Deprecated?: string;
  'Preferred-Value'?: string;
  Prefix?: string[];
}

interface Index {
  /** By `type:lowercase subtag or tag`. */
  entries: Map<string, RegistryEntry>;
  /** Private-use ranges such as `qaa..qtz`, lowercased. */
  ranges: Array<{ type: string; from: string; to: string; entry: RegistryEntry }>;
}

let index: Index | undefined;

function load(): Index {
  if (index) return index;
  const require = createRequire(import.meta.url);
  const registry = require('language-subtag-registry/data/json/registry.json') as RegistryEntry[];
  const built: Index = { entries: new Map(), ranges: [] };
  for (const entry of registry) {
    const key = (entry.Subtag ?? entry.Tag ?? '').toLowerCase();
    const range = key.split('..');
    if (range.length === 2) built.ranges.push({ type: entry.Type, from: range[0]!, to: range[1]!, entry });
    else built.entries.set(`${entry.Type}:${key}`, entry);
  }
  return (index = built);
}

/**
 * The registry's record for a subtag (or a whole grandfathered or redundant tag), any case.
 *
 * @example
 * lookup('language', 'iw')?.['Preferred-Value'] // 'he'
 * lookup('region', 'XY')?.Description // ['Private use'] (in the range XA..XZ)
 */
export function lookup(type: RegistryEntry['Type'], subtag: string): RegistryEntry | undefined {
  const { entries, ranges } = load();
  const key = subtag.toLowerCase();
  const exact = entries.get(`${type}:${key}`);
  if (exact) return exact;
  // Ranges are of one length (qaa..qtz, Qaaa..Qabx, QM..QZ, XA..XZ), so string order is enough.
  return ranges.find((r) => r.type === type && key.length === r.from.length && key >= r.from && key <= r.to)
    ?.entry;
}

/** A subtag's first description, for the words a reviewer reads ("he (Hebrew)"). */
export function described(type: RegistryEntry['Type'], subtag: string): string {
  const name = lookup(type, subtag)?.Description[0];
  return name ? `${subtag} (${name})` : subtag;
}

/** RFC 5646 §2.1.1 casing, which the registry also uses: script title case, region upper case. */
export function cased(type: SubtagType, subtag: string): string {
  if (type === 'script') return subtag[0]!.toUpperCase() + subtag.slice(1).toLowerCase();
  if (type === 'region') return subtag.toUpperCase();
  return subtag.toLowerCase();
}
