/**
 * Imported first by every command (main, purge-main, verify-main, users-main): an ES module's
 * imports run in order, so this refuses an old Node before any other module's code runs.
 */
import { basename } from 'node:path';
import { requireSupportedNode } from './node-version.ts';

requireSupportedNode(`Sponge (${basename(process.argv[1] ?? 'node')})`);
