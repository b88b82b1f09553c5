/**
 * The few parts of citation-js the references code calls: the packages ship no types. A CSL item
 * is CSL-JSON's (https://citeproc-js.readthedocs.io/en/latest/csl-json/markup.html), loosely.
 */
declare module '@citation-js/core' {
  export interface CslName {
    given?: string;
    family?: string;
    literal?: string;
    suffix?: string;
    'dropping-particle'?: string;
    'non-dropping-particle'?: string;
  }
  export interface CslItem {
    id?: string | number;
    type?: string;
    'citation-key'?: string;
    title?: string;
    author?: CslName[];
    issued?: { 'date-parts'?: Array<Array<number | string>>; raw?: string; literal?: string };
    DOI?: string;
    'container-title'?: string;
    'container-title-short'?: string;
    'event-title'?: string;
    publisher?: string;
    abstract?: string;
    keyword?: string;
    [field: string]: unknown;
  }
  export const plugins: {
    input: {
      /** One parsing step of a known type (`@ris/file` → records). */
      data(input: unknown, type: string): unknown;
      /** Parses through every step to CSL items. */
      chain(input: unknown, options: { forceType: string; generateGraph: false }): unknown;
    };
    output: { format(name: string, data: CslItem[], options?: Record<string, unknown>): string };
  };
}
declare module '@citation-js/name' {
  import type { CslName } from '@citation-js/core';
  export function parse(name: string): CslName;
}
declare module '@citation-js/plugin-bibtex';
declare module '@citation-js/plugin-ris';
declare module '@citation-js/plugin-csl';
