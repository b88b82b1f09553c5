// Flow: a working note in the Memory panel → "Propose for review" → the dialog in words (a finding
// of the installed Research profile, fields prefilled from the note, the study picked from the
// document's reviewed records, a note without a source starting with none, a passage selected in
// the source, the live check, the server's messages next to the fields, the record name under
// Advanced) → Accept → "Revision N created…" → a NEW run's panel lists the finding under "Reviewed
// knowledge in view" while the proposing session keeps its revision; a second note is rejected;
// both decisions are in the review history, in words.
import { readFile } from 'node:fs/promises';
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import type { Locator, Page } from '@playwright/test';
import {
  ADA,
  REEF_TITLE,
  adaRunOnReef,
  documentTitled,
  keepScreenshot,
  literal,
  login,
  panelPath,
  panelSections,
  signInBrowser,
  startChatRun,
  unique,
} from './support.ts';

/** A sentence of the reef document's text (Results), cited by the finding. */
const PASSAGE =
  'Sites with high densities of grazing fish regained a third of their lost cover within four years';
/** The seeded study's title (apps/api/src/demo/library.json), as a reference offers it. */
const SURVEY_STUDY = 'Resurvey of the northern reef, 2015–2020';

/** The Propose for review button of one working note's row. */
function proposeButton(page: Page, name: string): Locator {
  const { notes } = panelSections(page);
  return notes
    .getByRole('listitem')
    .filter({ has: page.getByRole('button', { name: new RegExp(literal(name)) }) })
    .getByRole('button', { name: 'Propose for review' });
}

/** Selects `text` inside the dialog's source text, as a person would with the mouse. */
async function selectInSource(source: Locator, text: string): Promise<void> {
  await source.evaluate((box, wanted) => {
    const p = [...box.querySelectorAll('p')].find((el) => el.textContent?.includes(wanted));
    const node = p?.firstChild;
    if (!p || !node) throw new Error(`"${wanted}" is not in the source text`);
    const start = (p.textContent ?? '').indexOf(wanted);
    const doc = box.ownerDocument;
    const range = doc.createRange();
    range.setStart(node, start);
    range.setEnd(node, start + wanted.length);
    const selection = doc.getSelection()!;
    selection.removeAllRanges();
    selection.addRange(range);
  }, text);
  await source.dispatchEvent('mouseup');
}

test('propose a working note, accept it, and a new run sees the finding as reviewed knowledge', async ({
  page,
  context,
}, testInfo) => {
  const { ada, reef, run } = await adaRunOnReef('review');
  const id = unique();
  const lead = `lead:grazers-${id}`;
  const rejectMe = `todo:only-grazers-${id}`;
  const leadText = 'Grazing fish density decides recovery: a third of lost cover back within four years.';
  const rejectText = 'Grazers are the only thing that matters for recovery.';
  await run.agent.remember({
    changes: [
      { op: 'add', name: lead, text: leadText, data: { effect: { value: '33.3', unit: '%' } } },
      { op: 'add', name: rejectMe, text: rejectText },
    ],
  });
  const pinned = (await ada.api.memory.panel.query({ documentId: reef.id, sessionId: run.sessionId }))
    .session!.pinnedRevision;

  await signInBrowser(context, ada);
  await page.goto(panelPath(reef.id, run.sessionId));
  await proposeButton(page, lead).click();

  const dialog = page.getByRole('dialog', { name: `Propose for review: “${leadText}”` });
  await expect(dialog).toBeVisible();
  // A lead is most often a finding: the kind by its label, the statement and the effect from the note.
  await expect(dialog.getByRole('radio', { name: 'Finding' })).toBeChecked();
  const finding = dialog.getByRole('group', { name: 'The finding' });
  await expect(finding.getByRole('textbox', { name: 'Statement (required)' })).toHaveValue(leadText);
  await expect(finding.getByRole('textbox', { name: 'Effect Value' })).toHaveValue('33.3');
  await expect(finding.getByRole('combobox', { name: 'Effect Unit' }).locator('option:checked')).toHaveText(
    'percent',
  );
  // The note does not say where it came from: no source is chosen for it.
  const source = dialog.getByRole('combobox', { name: 'Source' });
  await expect(source).toHaveValue('');
  await expect(dialog.getByText('This note does not say where it came from')).toBeVisible();
  await source.selectOption({ label: REEF_TITLE });

  // The live check, on the source's page.
  const passage = dialog.getByRole('textbox', { name: 'Passage' });
  await passage.fill('grazing fish restored all of the lost cover');
  await expect(dialog.getByText('✗ passage not found in the source')).toBeVisible();

  // Record it anyway, with the required study left empty: the server refuses, and says so next to
  // each field; nothing is recorded.
  await dialog.getByRole('textbox', { name: 'Comment' }).fill('Stated in the results.');
  await dialog.getByRole('button', { name: 'Record decision' }).click();
  await expect(dialog.getByRole('alert')).toContainText('The decision was not recorded');
  const study = finding.getByRole('combobox', { name: 'From study (required)' });
  await expect(study).toHaveAccessibleDescription(/required/);
  await expect(passage).toHaveAccessibleDescription(/passage not found in the source/);
  expect(
    (await ada.api.review.history.query({ documentId: reef.id })).decisions.filter(
      (d) => d.text === leadText,
    ),
  ).toEqual([]);

  // Fix both: the study picked by its title, and a passage selected in the source text.
  await study.selectOption({ label: SURVEY_STUDY });
  await selectInSource(dialog.getByRole('region', { name: `Source text: ${REEF_TITLE}` }), PASSAGE);
  await expect(passage).toHaveValue(PASSAGE);
  await expect(dialog.getByText('✓ passage found in the source')).toBeVisible();
  await dialog.getByRole('radio', { name: 'Accept' }).check();
  // The record's name, generated from the statement, is the reviewer's to change under Advanced.
  await dialog.getByRole('button', { name: 'Advanced' }).click();
  const recordName = dialog.getByRole('textbox', { name: 'Record name' });
  await expect(recordName).toHaveValue(/^finding:grazing-fish-density-decides-recovery/);
  const name = `finding:grazers-${id}`;
  await recordName.fill(name);

  const axe = await new AxeBuilder({ page })
    .include('[role="dialog"]')
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'])
    .analyze();
  expect(
    axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id),
  ).toEqual([]);
  await keepScreenshot(page, testInfo, 'review-workbench');

  await dialog.getByRole('button', { name: 'Record decision' }).click();
  const created = dialog.getByText(
    /^Revision \d+ created\. New runs will see it; running sessions keep revision \d+\.$/,
  );
  await expect(created).toBeVisible();
  const history = await ada.api.review.history.query({ documentId: reef.id });
  const accepted = history.decisions.find((d) => d.name === name);
  expect(accepted).toMatchObject({
    decision: 'accept',
    reviewerName: ADA,
    passage: PASSAGE,
    text: leadText,
    fields: { statement: leadText, study: 'study:reef-resurvey-2016', effect: { value: '33.3', unit: '%' } },
  });
  const revision = accepted!.revision!;
  await expect(created).toHaveText(
    `Revision ${revision} created. New runs will see it; running sessions keep revision ${pinned}.`,
  );
  // The outcome takes the focus, so a keyboard user can close the dialog at once.
  await expect(dialog.getByRole('button', { name: 'Close' })).toBeFocused();
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(dialog).toBeHidden();

  // The proposing session keeps its pin: the new finding is not in its view.
  const { reviewed } = panelSections(page);
  await expect(reviewed.getByRole('button', { name: new RegExp(literal(name)) })).toHaveCount(0);

  // Reject the other note: a decision on record, no revision.
  await proposeButton(page, rejectMe).click();
  const second = page.getByRole('dialog', { name: `Propose for review: “${rejectText}”` });
  await expect(second.getByRole('radio', { name: 'Finding' })).toBeChecked();
  await second.getByRole('combobox', { name: 'From study (required)' }).selectOption({ label: SURVEY_STUDY });
  await second.getByRole('combobox', { name: 'Source' }).selectOption({ label: REEF_TITLE });
  await second.getByRole('textbox', { name: 'Passage' }).fill(PASSAGE);
  await second.getByRole('radio', { name: 'Reject' }).check();
  await second
    .getByRole('textbox', { name: 'Comment' })
    .fill('The survey does not say grazers are the only factor.');
  await second.getByRole('button', { name: 'Record decision' }).click();
  await expect(
    second.getByText(
      'Rejection recorded. No revision was created; the decision stays in the review history.',
    ),
  ).toBeVisible();
  await second.getByRole('button', { name: 'Close' }).click();

  // A NEW run pins the newest revision: its panel lists the finding as reviewed knowledge.
  const next = await startChatRun(ada, reef.id, 'after review');
  await page.goto(panelPath(reef.id, next.sessionId));
  const after = panelSections(page);
  const findingRow = after.reviewed.getByRole('button', { name: new RegExp(literal(name)) });
  await expect(findingRow).toBeVisible();
  await expect(findingRow).toContainText(`reviewed by ${ADA} · rev ${revision}`);
  await findingRow.click();
  const detail = page.locator(`#${await findingRow.getAttribute('aria-controls')}`);
  await expect(detail).toContainText(PASSAGE);
  await expect(detail).toContainText('Effect: 33.3 %');
  await expect(detail).not.toContainText('"profile"');
  // …and the agent of that run reads it as reviewed.
  const read = await next.agent.read({ name });
  expect(read).toMatchObject({ source: 'reviewed' });
  await keepScreenshot(page, testInfo, 'review-new-run-panel');

  // The review history, from Document actions: both decisions, newest first, in words.
  await page.goto(`/documents/${encodeURIComponent(reef.id)}`);
  await page.getByRole('button', { name: 'Document actions' }).click();
  await page.getByRole('menuitem', { name: 'Review history' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Review history' })).toBeVisible();
  const decisions = page.getByRole('list', { name: 'Decisions, newest first' }).getByRole('listitem');
  const rejected = page.getByRole('article', { name: `Rejected finding: ${rejectText}` });
  await expect(rejected).toContainText('no revision');
  await expect(rejected).toContainText('The survey does not say grazers are the only factor.');
  const acceptedItem = page.getByRole('article', { name: `Accepted finding: ${leadText}` });
  await expect(acceptedItem).toContainText(`revision ${revision} · by ${ADA}`);
  await expect(acceptedItem.getByRole('list', { name: `Fields of ${leadText}` })).toContainText(
    `From study: ${SURVEY_STUDY}`,
  );
  await expect(acceptedItem).toContainText(PASSAGE);
  await expect(acceptedItem.getByRole('link', { name: REEF_TITLE })).toBeVisible();
  // Newest first: the reject comes before the accept.
  const names = await decisions
    .locator('article')
    .evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
  expect(names.indexOf(`Rejected finding: ${rejectText}`)).toBeLessThan(
    names.indexOf(`Accepted finding: ${leadText}`),
  );
  await keepScreenshot(page, testInfo, 'review-history');
});

/** A sentence of the reef document's introduction: what a publication or a study is cited by. */
const SURVEY = 'We resurveyed 112 sites that had been mapped in 2015 and followed them through 2020.';

test('a language tag recorded in its preferred form is shown in the outcome', async ({ page, context }) => {
  const { ada, reef, run } = await adaRunOnReef('normalized');
  const lead = `lead:uk-report-${unique()}`;
  await run.agent.remember({
    changes: [{ op: 'add', name: lead, text: 'a report written in British English' }],
  });

  await signInBrowser(context, ada);
  await page.goto(panelPath(reef.id, run.sessionId));
  await proposeButton(page, lead).click();
  const dialog = page.getByRole('dialog', {
    name: 'Propose for review: “a report written in British English”',
  });
  await dialog.getByRole('radio', { name: 'Publication' }).check();
  const publication = dialog.getByRole('group', { name: 'The publication' });
  await publication
    .getByRole('textbox', { name: 'Title (required)' })
    .fill('Reef recovery after the 2016 bleaching');
  await publication.getByRole('combobox', { name: 'Status (required)' }).selectOption({ label: 'Published' });
  await publication.getByRole('textbox', { name: 'Language', exact: true }).fill('en-UK');
  await dialog.getByRole('combobox', { name: 'Source' }).selectOption({ label: REEF_TITLE });
  await dialog.getByRole('textbox', { name: 'Passage' }).fill(SURVEY);
  await dialog.getByRole('radio', { name: 'Accept' }).check();
  await dialog.getByRole('textbox', { name: 'Comment' }).fill('As on the title page.');
  await dialog.getByRole('button', { name: 'Record decision' }).click();
  await expect(dialog.getByText(/^Revision \d+ created\./)).toBeVisible();
  const normalized = dialog.getByRole('list', { name: 'Values recorded in their preferred form' });
  await expect(normalized).toContainText('Language: en-UK → en-GB (');
});

test('history shows profile, fields and links; a correction is marked in the panel; the export downloads', async ({
  page,
  context,
}, testInfo) => {
  const ada = await login(ADA);
  const reef = await documentTitled(ada, REEF_TITLE);
  const slug = unique();
  const finding = `finding:grazers-${slug}`;
  const correction = `correction:grazers-${slug}`;
  const decide = (kind: string, name: string, fields: Record<string, unknown>) =>
    ada.api.review.decide.mutate({
      documentId: reef.id,
      profile: 'research',
      kind,
      name,
      text: `The ${kind} ${name}.`,
      fields,
      sourceDocumentId: reef.id,
      passage: PASSAGE,
      decision: 'accept',
      comment: `Checked ${name}.`,
    });
  const accepted = await decide('finding', finding, {
    statement: 'Grazing fish decided recovery.',
    study: 'study:reef-resurvey-2016',
    sample: 'sample:reef-sites-112',
  });
  expect(accepted.links.map((l) => l.to)).toEqual(['sample:reef-sites-112', 'study:reef-resurvey-2016']);
  await decide('correction', correction, {
    corrects: finding,
    type: 'erratum',
    date: '2021-06-01',
    reason: 'The share of cover regained was misreported.',
  });

  // A new run sees both: the finding as accepted, marked, and the correction that marks it.
  const run = await startChatRun(ada, reef.id, 'corrected');
  await signInBrowser(context, ada);
  await page.goto(panelPath(reef.id, run.sessionId));
  const { reviewed } = panelSections(page);
  const findingRow = reviewed.getByRole('button', { name: new RegExp(literal(finding)) });
  await expect(findingRow).toContainText('⚠ corrected');
  await findingRow.click();
  const detail = page.locator(`#${await findingRow.getAttribute('aria-controls')}`);
  await expect(detail).toContainText(`corrected by ${correction}`);
  await expect(detail).toContainText('depends on → study:reef-resurvey-2016');
  await expect(detail).toContainText(accepted.digest);
  const correctionRow = reviewed.getByRole('button', { name: new RegExp(literal(correction)) });
  await expect(correctionRow).not.toContainText('⚠');
  await correctionRow.click();
  await expect(page.locator(`#${await correctionRow.getAttribute('aria-controls')}`)).toContainText(
    `corrects ${finding}`,
  );
  await keepScreenshot(page, testInfo, 'review-correction-marked');

  // The history: the profile release, the fields as accepted and the links, in words.
  const history = await ada.api.review.history.query({ documentId: reef.id });
  const entry = history.decisions.find((d) => d.name === finding)!;
  await page.goto(`/documents/${encodeURIComponent(reef.id)}/reviews`);
  const title = `The finding ${finding}.`;
  const item = page.getByRole('article', { name: `Accepted finding: ${title}` });
  await expect(item).toContainText(
    `Research ${entry.profile!.version} (pack ${entry.profile!.digest!.slice(0, 4)}...)`,
  );
  const fields = item.getByRole('list', { name: `Fields of ${title}` });
  await expect(fields).toContainText('Statement: Grazing fish decided recovery.');
  await expect(fields).toContainText(`From study: ${SURVEY_STUDY}`);
  await expect(item).toContainText('depends on the sample “The 112 reef sites mapped in 2015.”');
  await expect(item).toContainText(`Checked ${finding}.`);
  await expect(item).toContainText(PASSAGE);
  await keepScreenshot(page, testInfo, 'review-history-fields');

  // Export: the file is the server's canonical JSON, with the corrected finding and its mark.
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Export reviewed knowledge' }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(
    /^reef-recovery-after-the-2016-bleaching-reviewed-knowledge-rev\d+\.json$/,
  );
  const file = JSON.parse(await readFile(await download.path(), 'utf8')) as {
    format: string;
    revision: number;
    records: Array<{ name: string; digest: string; marks: Array<{ reason: string; by: string }> }>;
  };
  expect(file).toMatchObject({ format: 'sponge-reviewed-knowledge/1', revision: history.latestRevision });
  const exported = file.records.find((r) => r.name === finding)!;
  expect(exported).toMatchObject({
    digest: accepted.digest,
    marks: [{ reason: 'corrected', by: correction }],
  });
  expect(file.records.map((r) => r.name)).toContain(correction);
});
