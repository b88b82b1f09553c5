/**
 * OCR languages (SPEC §6b): each is an installed npm package `@tesseract.js-data/<code>` holding
 * its traineddata, gzipped. Nothing is downloaded at run time: a language that is not installed
 * is a configuration error at start (`OCR_LANGUAGES`), not a fetch when the first scan arrives.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** English, the one language the API depends on. */
export const DEFAULT_OCR_LANGUAGES: readonly string[] = ['eng'];

export interface OcrLanguage {
  /** Tesseract's code: `eng`, `deu`, `chi_sim`. */
  code: string;
  /** The gzipped traineddata file. */
  file: string;
}

const require = createRequire(import.meta.url);

/** `eng+deu`, `eng,deu` or `eng deu` → `['eng', 'deu']`; empty → the default. */
export function parseOcrLanguages(value: string | undefined): string[] {
  const codes = (value ?? '').split(/[+,\s]+/).filter((c) => c.length > 0);
  return codes.length > 0 ? [...new Set(codes)] : [...DEFAULT_OCR_LANGUAGES];
}

/**
 * The traineddata of each language, or the problems (one per language) for the configuration to
 * report. The LSTM-only integer model (`4.0.0_best_int`) is what tesseract.js reads by default for
 * its LSTM engine; the package's full model is the fallback.
 */
export function resolveOcrLanguages(
  codes: readonly string[],
): { ok: true; languages: OcrLanguage[] } | { ok: false; problems: string[] } {
  const languages: OcrLanguage[] = [];
  const problems: string[] = [];
  for (const code of codes) {
    if (!/^[a-z]{3}(_[a-z]+)?$/.test(code)) {
      problems.push(`${JSON.stringify(code)} is not a Tesseract language code (like eng, deu, chi_sim)`);
      continue;
    }
    let dir: string;
    try {
      dir = dirname(require.resolve(`@tesseract.js-data/${code}/package.json`));
    } catch {
      problems.push(
        `${code} is not installed (add the npm package @tesseract.js-data/${code} to packages/library)`,
      );
      continue;
    }
    const file = ['4.0.0_best_int', '4.0.0']
      .map((v) => join(dir, v, `${code}.traineddata.gz`))
      .find((f) => existsSync(f));
    if (file === undefined) problems.push(`@tesseract.js-data/${code} has no ${code}.traineddata.gz`);
    else languages.push({ code, file });
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, languages };
}
