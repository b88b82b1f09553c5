// Flow: a library that knows its papers (SPEC §6d, issue 41). A new account imports a BibTeX
// export with its two PDFs through "Import from Zotero, BibTeX, RIS…": each entry is said in
// words, both papers are listed as "Hughes et al. 2017 · Title · Venue #tag", and Cite on the
// two selected puts their APA references on the clipboard (read back from it). And a file the
// library already has is refused as a duplicate that offers the document it has, and Copy
// bibliography under a reply copies the references of the documents it cites.
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import type { Page } from '@playwright/test';
import { makePdf } from '@sponge/testing/pdf-fixtures';
import {
  REEF_TITLE,
  adaRunOnReef,
  apiClient,
  keepScreenshot,
  newPerson,
  originOf,
  servers,
  signInBrowser,
  signUpInBrowser,
  unique,
} from './support.ts';

const server = servers.accounts;
const origin = originOf(server);

const HUGHES = 'Global warming and recurrent mass bleaching of corals';
const WERNBERG = 'Climate-driven regime shift of a temperate marine ecosystem';

/** Two entries as Zotero exports them, each naming its PDF by file name. */
const BIBTEX = `@article{hughes2017,
  title = {${HUGHES}},
  author = {Hughes, Terry P. and Kerry, James T. and Baird, Andrew H.},
  journal = {Nature},
  year = {2017},
  doi = {10.1038/nature21707},
  keywords = {bleaching},
  file = {hughes2017.pdf}
}

@article{wernberg2016,
  title = {${WERNBERG}},
  author = {Wernberg, Thomas and Bennett, Scott},
  journal = {Science},
  year = {2016},
  doi = {10.1126/science.aad8745},
  keywords = {kelp},
  file = {wernberg2016.pdf}
}
`;

async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa']).analyze();
  return results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id);
}

test('import a BibTeX export with its PDFs, see who wrote what, and copy their APA references', async ({
  page,
  context,
}, testInfo) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  const [hughesPdf, wernbergPdf] = await Promise.all([
    makePdf([`${HUGHES}. Heat stress in 2016 bleached most reefs of the northern Great Barrier Reef.`]),
    makePdf([`${WERNBERG}. The 2011 heatwave removed kelp forests along 100 km of coast.`]),
  ]);
  await signUpInBrowser(page, server, newPerson('Ada Import'));

  await page.getByRole('button', { name: 'Import from Zotero, BibTeX, RIS…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Import from a reference manager' });
  await dialog.getByLabel('Exported file').setInputFiles({
    name: `My Library ${unique()}.bib`,
    mimeType: 'application/x-bibtex',
    buffer: Buffer.from(BIBTEX),
  });
  await dialog.getByLabel('Its PDFs').setInputFiles([
    { name: 'hughes2017.pdf', mimeType: 'application/pdf', buffer: Buffer.from(hughesPdf) },
    { name: 'wernberg2016.pdf', mimeType: 'application/pdf', buffer: Buffer.from(wernbergPdf) },
  ]);
  await dialog.getByRole('button', { name: 'Import' }).click();
  await expect(dialog.getByRole('status').filter({ hasText: 'added' })).toHaveText('2 added.', {
    timeout: 20_000,
  });
  const entries = dialog.getByRole('list', { name: 'Entries' }).getByRole('listitem');
  await expect(entries).toHaveText([`Added: ${HUGHES}`, `Added: ${WERNBERG}`], { useInnerText: true });
  await keepScreenshot(page, testInfo, 'papers-import-result');
  expect(await seriousViolations(page)).toEqual([]);
  await dialog.getByRole('button', { name: 'Close' }).click();

  // Both listed as a researcher names them: authors and year, title, venue, tag.
  const rows = page.getByRole('list', { name: 'Your documents' }).getByRole('listitem');
  const hughes = rows.filter({ hasText: HUGHES });
  const wernberg = rows.filter({ hasText: WERNBERG });
  await expect(hughes).toContainText(`Hughes et al. 2017 · ${HUGHES} · Nature`);
  await expect(hughes).toContainText('#bleaching');
  await expect(wernberg).toContainText(`Wernberg and Bennett 2016 · ${WERNBERG} · Science`);
  await expect(wernberg).toContainText('#kelp');

  // Select both, Cite → APA: the two references land on the clipboard.
  await page.getByRole('checkbox', { name: `Select “${HUGHES}”` }).check();
  await page.getByRole('checkbox', { name: `Select “${WERNBERG}”` }).check();
  await page.getByRole('button', { name: 'Cite selected' }).click();
  await page.getByRole('menuitem', { name: 'APA text' }).click();
  const bar = page.getByRole('group', { name: 'Selected documents' });
  await expect(bar.getByRole('status').last()).toHaveText('APA references of 2 documents copied.');
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied).toContain('Hughes, T. P.');
  expect(copied).toContain('(2017)');
  expect(copied).toContain(HUGHES);
  expect(copied).toContain('Wernberg, T.');
  expect(copied).toContain('https://doi.org/10.1038/nature21707');
  await keepScreenshot(page, testInfo, 'papers-library');
  expect(await seriousViolations(page)).toEqual([]);

  // The Tag filter narrows the list to the owner's documents with the tag.
  await page.getByRole('combobox', { name: 'Tag' }).selectOption('kelp');
  const tagged = page.getByRole('list', { name: 'Your documents tagged #kelp' });
  await expect(tagged.getByRole('link', { name: WERNBERG })).toBeVisible();
  await expect(tagged.getByRole('link', { name: HUGHES })).toHaveCount(0);
  await page.getByRole('combobox', { name: 'Tag' }).selectOption('');

  // The document shows what it is, its DOI a link at doi.org.
  await hughes.getByRole('link', { name: HUGHES }).click();
  await expect(page.getByRole('heading', { level: 1, name: HUGHES })).toBeVisible();
  const about = page.getByRole('region', { name: 'About this document' });
  await expect(about).toContainText('Terry P. Hughes, James T. Kerry, Andrew H. Baird');
  await expect(about).toContainText('2017 · Nature');
  await expect(about.getByRole('link', { name: '10.1038/nature21707' })).toHaveAttribute(
    'href',
    'https://doi.org/10.1038/nature21707',
  );
  await keepScreenshot(page, testInfo, 'papers-document');

  // Edit details: a wrong DOI is said under its field and nothing is saved; tags are set.
  await page.getByRole('button', { name: 'Edit details' }).click();
  const edit = page.getByRole('dialog', { name: 'Edit details' });
  await edit.getByLabel('DOI').fill('nature21707');
  await edit.getByLabel('Tags').fill('bleaching, #Reefs');
  await edit.getByRole('button', { name: 'Save' }).click();
  await expect(edit.getByLabel('DOI')).toHaveAccessibleDescription(/This is not a DOI/);
  expect(await seriousViolations(page)).toEqual([]);
  await keepScreenshot(page, testInfo, 'papers-edit-details');
  await edit.getByLabel('DOI').fill('https://doi.org/10.1038/NATURE21707');
  await edit.getByRole('button', { name: 'Save' }).click();
  await expect(edit).toBeHidden();
  await expect(about.getByRole('list', { name: 'Tags' }).getByRole('listitem')).toHaveText([
    '#bleaching',
    '#Reefs',
  ]);
  await expect(about.getByRole('link', { name: '10.1038/nature21707' })).toBeVisible();
});

test('a file the library already has is refused, offering the document it has', async ({
  page,
}, testInfo) => {
  const title = `Kelp canopy survey ${unique()}`;
  const pdf = Buffer.from(
    await makePdf([`${title}. Canopy cover fell by half after the heatwave.`], { title }),
  );
  await signUpInBrowser(page, server, newPerson('Ada Twice'));
  await page.getByRole('button', { name: 'Add document' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add a document' });
  const upload = (name: string) =>
    dialog.getByLabel('Choose files').setInputFiles({ name, mimeType: 'application/pdf', buffer: pdf });
  await upload('kelp.pdf');
  await expect(dialog.getByRole('listitem').filter({ hasText: 'kelp.pdf' })).toContainText('ready', {
    timeout: 20_000,
  });

  await upload('kelp copy.pdf');
  const again = dialog.getByRole('listitem').filter({ hasText: 'kelp copy.pdf' });
  await expect(again).toContainText(`Already in your library: “${title}” — open it?`);
  await keepScreenshot(page, testInfo, 'papers-duplicate');
  await again.getByRole('link', { name: 'open it' }).click();
  await expect(page.getByRole('heading', { level: 1, name: title })).toBeVisible();
  // Nothing was stored for the second file.
  await page.goto(`${origin}/`);
  const own = page.getByRole('list', { name: 'Your documents' });
  await expect(own.getByRole('link', { name: title })).toHaveCount(1);
  await expect(own.getByRole('checkbox')).toHaveCount(1);
});

test('a library of 130 papers opens with its first 100, and shows the rest when asked', async ({
  page,
}, testInfo) => {
  await signUpInBrowser(page, server, newPerson('Ada Many'));
  // Added as the web adds a pasted text (a same-origin POST with the session's cookie).
  const added = await page.evaluate(async () => {
    let ok = 0;
    for (let i = 0; i < 130; i++) {
      const res = await fetch('/trpc/documents.add', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ title: `Survey ${String(i).padStart(3, '0')}`, text: `Transect ${i} notes.` }),
      });
      if (res.ok) ok++;
    }
    return ok;
  });
  expect(added).toBe(130);
  await page.reload();
  const own = page.getByRole('list', { name: 'Your documents' });
  await expect(own.getByRole('checkbox')).toHaveCount(100);
  await expect(page.getByText('Showing 100 of 130.')).toBeVisible();
  await keepScreenshot(page, testInfo, 'papers-first-page');
  await page.getByRole('button', { name: 'Show 30 more' }).click();
  await expect(own.getByRole('checkbox')).toHaveCount(130);
  await expect(page.getByText(/Showing \d+ of/)).toHaveCount(0);
});

test('Copy bibliography under a reply copies the references of the documents it cites', async ({
  page,
  context,
}, testInfo) => {
  const { ada, reef, run } = await adaRunOnReef('bibliography');
  await apiClient(ada.server, run.runToken).agent.say.mutate({
    text: 'Over 90 percent of the most exposed sites bleached [1], and larval supply limited recovery [2].',
    citations: [
      { documentId: reef.id, page: 1, quote: 'bleached in over 90 percent of surveyed sites' },
      { documentId: reef.id, page: 1, quote: 'Larval supply limited recovery at isolated sites' },
    ],
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: originOf(ada.server) });
  await signInBrowser(context, ada);
  await page.goto(`/documents/${encodeURIComponent(reef.id)}`);
  const ourRun = page
    .getByRole('region', { name: 'Runs' })
    .getByRole('article')
    .filter({ hasText: run.label });
  await ourRun.getByRole('button', { name: 'Copy bibliography' }).click();
  await page.getByRole('menuitem', { name: 'Vancouver text' }).click();
  // The document cited twice is one reference.
  await expect(ourRun.getByRole('status').filter({ hasText: 'copied' })).toHaveText(
    'Vancouver reference copied.',
  );
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied).toContain(REEF_TITLE);
  expect(copied).toContain('Okafor M');
  await keepScreenshot(page, testInfo, 'papers-copy-bibliography');
});

test('the BibTeX one account cites, another imports with the same authors, year, venue and tags', async ({
  page,
  context,
  browser,
}) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  await signUpInBrowser(page, server, newPerson('Ada Export'));
  const importBib = async (on: Page, bib: string) => {
    await on.getByRole('button', { name: 'Import from Zotero, BibTeX, RIS…' }).click();
    const dialog = on.getByRole('dialog', { name: 'Import from a reference manager' });
    await dialog.getByLabel('Exported file').setInputFiles({
      name: 'export.bib',
      mimeType: 'application/x-bibtex',
      buffer: Buffer.from(bib),
    });
    await dialog.getByRole('button', { name: 'Import' }).click();
    await expect(dialog.getByRole('status').filter({ hasText: 'added' })).toHaveText('2 added.', {
      timeout: 20_000,
    });
    const said = await dialog.getByRole('list', { name: 'Entries' }).innerText();
    await dialog.getByRole('button', { name: 'Close' }).click();
    return said;
  };
  // Without PDFs: each entry keeps its metadata (and its abstract, if any) as a document, and the
  // result says which PDF each named did not come.
  expect(await importBib(page, BIBTEX)).toContain(
    `Added: ${HUGHES} — without its PDF: hughes2017.pdf was not among the files sent.`,
  );
  await page.getByRole('checkbox', { name: `Select “${HUGHES}”` }).check();
  await page.getByRole('checkbox', { name: `Select “${WERNBERG}”` }).check();
  await page.getByRole('button', { name: 'Cite selected' }).click();
  await page.getByRole('menuitem', { name: 'BibTeX' }).click();
  await expect(page.getByRole('group', { name: 'Selected documents' }).getByRole('status').last()).toHaveText(
    'BibTeX entries of 2 documents copied.',
  );
  const exported = await page.evaluate(() => navigator.clipboard.readText());

  const other = await browser.newContext();
  const otherPage = await other.newPage();
  await signUpInBrowser(otherPage, server, newPerson('Bob Import'));
  await importBib(otherPage, exported);
  const rows = otherPage.getByRole('list', { name: 'Your documents' });
  await expect(rows).toContainText(`Hughes et al. 2017 · ${HUGHES} · Nature`);
  await expect(rows).toContainText(`Wernberg and Bennett 2016 · ${WERNBERG} · Science`);
  await expect(rows.getByRole('listitem').filter({ hasText: HUGHES })).toContainText('#bleaching');
  await expect(rows.getByRole('listitem').filter({ hasText: WERNBERG })).toContainText('#kelp');
  await other.close();
});
