import type { PackDefinition } from '../pack.ts';
import { finance } from './finance.ts';
import { language } from './language.ts';
import { research } from './research.ts';

/** The shipped packs' sources; `build-packs.ts` seals them into `packs/<name>.json`. */
export const PACK_DEFINITIONS: readonly PackDefinition[] = [research, language, finance];
