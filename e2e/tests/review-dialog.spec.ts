// Flow (issue 39, SPEC §7, UI.md *In the researcher's words*), on the server with the hosted
// runtime beside it: a new owner signs up, adds a fresh document and asks about it → the scripted
// agent keeps a note with its source → Propose for review on the Memory panel → the dialog says
// Research fits and installs it on the owner's word → a finding, its new study and the study's
// new publication, all in that one dialog, in words → accepted: one new revision holding the three
// records → the note shows "Accepted" → the review history reads in words. Then the same by
// keyboard alone, with an axe check of the dialog.
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import type { Locator, Page, TestInfo } from '@playwright/test';
import {
  countDialogs,
  expectLabelsInWords,
  keepDialogScreenshot,
  ownerMutation,
  ownerQuery,
  tabTo,
} from './review-support.ts';
import {
  keepScreenshot,
  newPerson,
  originOf,
  panelPath,
  panelSections,
  servers,
  signUpInBrowser,
  unique,
} from './support.ts';

test.use({ baseURL: originOf(servers.chat) });

const STATEMENT = 'The kelp canopy recovered 37 percent by 2021.';
const KELP_TEXT = [
  'Divers mapped the canopy at twelve sites along the Western Cape every spring from 2016.',
  '',
  `${STATEMENT} The recovery was uneven: sheltered bays came back first.`,
  '',
  'Sea urchins grazed the exposed reefs, where recovery lagged behind.',
].join('\n');
/** Shares "kelp", "canopy", "recovered" and "2021" with the statement: the scripted agent quotes it. */
const QUESTION = 'How much had the kelp canopy recovered by 2021?';
const TITLE = `Western Cape kelp canopy scan`;
const STUDY = 'Western Cape kelp canopy survey';
const PUBLICATION = 'Kelp forests of the Western Cape, 2016–2021';
const DIALOG = `Propose for review: “${STATEMENT}”`;

/** A new owner with a fresh document, asked about: the agent's note with its source, on the panel. */
async function newOwnerWithNote(page: Page): Promise<{ documentId: string; note: string }> {
  await signUpInBrowser(page, servers.chat, newPerson('Maria Merian'));
  const added = await ownerMutation(page, 'documents.add', {
    title: `${TITLE} ${unique()}`,
    text: KELP_TEXT,
  });
  await page.goto(`/documents/${encodeURIComponent(added.id)}`);
  const ask = page
    .getByRole('region', { name: 'Runs' })
    .getByRole('textbox', { name: 'Ask about this document' });
  await ask.fill(QUESTION);
  await ask.press('Enter');
  // The hosted runtime answers: its note, kept with the page and quote it was made from.
  let note = '';
  await expect
    .poll(
      async () => {
        const panel = await ownerQuery(page, 'memory.panel', { documentId: added.id });
        const kept = panel.workingNotes.find((n) => n.name.startsWith('lead:'));
        note = kept?.name ?? '';
        return kept?.data;
      },
      { timeout: 30_000 },
    )
    .toMatchObject({ source: { documentId: added.id, page: 1, quote: STATEMENT } });
  return { documentId: added.id, note };
}

/** The Propose for review button (or what replaced it) on the note's row. */
function noteRow(page: Page): Locator {
  return panelSections(page).notes.getByRole('listitem').filter({ hasText: 'lead:' });
}

/** What the history holds after the decision: three accepted records in one new revision. */
async function expectOneRevisionOfThree(page: Page, documentId: string) {
  const history = await ownerQuery(page, 'review.history', { documentId });
  expect(history.latestRevision).toBe(1);
  expect(history.decisions.map((d) => [d.kind, d.decision, d.revision]).sort()).toEqual([
    ['finding', 'accept', 1],
    ['publication', 'accept', 1],
    ['study', 'accept', 1],
  ]);
  const byKind = Object.fromEntries(history.decisions.map((d) => [d.kind, d]));
  expect(byKind.finding).toMatchObject({
    name: 'finding:kelp-canopy-recovered-37-percent-by-2021',
    passage: STATEMENT,
    source: { documentId },
    fields: {
      statement: STATEMENT,
      effect: { value: '37', unit: '%' },
      interval: { low: '30', high: '44', level: '0.95' },
      study: byKind.study!.name,
    },
  });
  expect(byKind.study!.fields).toMatchObject({
    title: STUDY,
    design: 'cohort',
    reportedIn: [byKind.publication!.name],
  });
  expect(byKind.publication!.fields).toMatchObject({ title: PUBLICATION, status: 'published' });
}

/** The review history, in words. */
async function expectHistoryInWords(page: Page, documentId: string, testInfo: TestInfo) {
  await page.goto(`/documents/${encodeURIComponent(documentId)}/reviews`);
  const finding = page.getByRole('article', { name: `Accepted finding: ${STATEMENT}` });
  const fields = finding.getByRole('list', { name: `Fields of ${STATEMENT}` });
  await expect(fields).toContainText('Effect: 37 %');
  await expect(fields).toContainText('95% interval: 30–44 %');
  await expect(fields).toContainText(`From study: ${STUDY}`);
  await expect(
    page
      .getByRole('article', { name: `Accepted study: ${STUDY}` })
      .getByRole('list', { name: `Fields of ${STUDY}` }),
  ).toContainText(`Reported in: ${PUBLICATION}`);
  await expect(page.getByRole('article', { name: `Accepted publication: ${PUBLICATION}` })).toContainText(
    'Status: Published',
  );
  const text = await page.getByRole('list', { name: 'Decisions, newest first' }).innerText();
  expect(text).not.toMatch(/[{}]|"unit"|reportedIn|effectMeasure/u);
  await keepScreenshot(page, testInfo, 'review-history-in-words');
}

test('a new owner proposes the agent’s note: a finding with a new study and publication, one dialog, one revision', async ({
  page,
}, testInfo) => {
  test.setTimeout(90_000);
  const { documentId, note } = await newOwnerWithNote(page);

  await page.goto(panelPath(documentId));
  const dialogs = await countDialogs(page);
  // On every working note, with no profile installed yet.
  await noteRow(page).getByRole('button', { name: 'Propose for review' }).click();
  const dialog = page.getByRole('dialog', { name: DIALOG });
  await expect(dialog).toBeVisible();

  // No profile here yet: the dialog says which fits, and installs it when the owner says so.
  const offer = dialog.getByRole('group', { name: 'The Research profile' });
  await expect(offer).toContainText('Research fits this note');
  await keepScreenshot(page, testInfo, 'review-dialog-profile-offer');
  await offer.getByRole('button', { name: 'Install Research and go on' }).click();

  // What is it: a finding, by its label and one line; the statement is the note's own finding.
  await expect(dialog.getByRole('radio', { name: 'Finding' })).toBeChecked();
  await expect(dialog.getByRole('radio', { name: 'Finding' })).toHaveAccessibleDescription(
    'A result a study reports, with its effect where there is one.',
  );
  const finding = dialog.getByRole('group', { name: 'The finding' });
  await expect(finding.getByRole('textbox', { name: 'Statement (required)' })).toHaveValue(STATEMENT);
  // The effect the statement states, its unit in words.
  await expect(finding.getByRole('textbox', { name: 'Effect Value' })).toHaveValue('37');
  await expect(finding.getByRole('combobox', { name: 'Effect Unit' }).locator('option:checked')).toHaveText(
    'percent',
  );
  // The optional interval asks for nothing until it is opened.
  const interval = finding.getByRole('button', { name: 'Interval (optional)' });
  await expect(interval).toHaveAttribute('aria-expanded', 'false');
  await expect(finding.getByRole('textbox', { name: /^Low/ })).toHaveCount(0);
  await interval.click();
  await finding.getByRole('textbox', { name: 'Low (required)' }).fill('30');
  await finding.getByRole('textbox', { name: 'High (required)' }).fill('44');
  await finding.getByRole('textbox', { name: 'Confidence level (required)' }).fill('0.95');

  // The study, new, made inline; and the study's publication, new, inline in it.
  await expect(finding.getByRole('combobox', { name: 'From study (required)' })).toContainText(
    'No study reviewed yet',
  );
  await finding.getByRole('button', { name: '+ New study…' }).click();
  const study = finding.getByRole('group', { name: 'New study' });
  await expect(study.getByRole('textbox', { name: 'Title (required)' })).toBeFocused();
  await study.getByRole('textbox', { name: 'Title (required)' }).fill(STUDY);
  await study.getByRole('combobox', { name: 'Design (required)' }).selectOption({ label: 'Cohort' });
  await study.getByRole('button', { name: '+ New publication…' }).click();
  const publication = study.getByRole('group', { name: 'New publication' });
  await publication.getByRole('textbox', { name: 'Title (required)' }).fill(PUBLICATION);
  await publication.getByRole('combobox', { name: 'Status (required)' }).selectOption({ label: 'Published' });
  // The finding's study now names the new one by its title.
  await expect(
    finding.getByRole('combobox', { name: 'From study (required)' }).locator('option:checked'),
  ).toHaveText(`New study: ${STUDY}`);

  // Source and passage: the note's, on its page, checked.
  await expect(dialog.getByRole('combobox', { name: 'Source' })).toHaveValue(documentId);
  await expect(dialog.getByRole('textbox', { name: 'Passage' })).toHaveValue(STATEMENT);
  await expect(dialog.getByText('✓ passage found in the source')).toBeVisible();
  await dialog.getByRole('textbox', { name: 'Comment' }).fill('As the survey reports it.');
  await expect(dialog.getByRole('radio', { name: 'Accept' })).toBeChecked();

  await expectLabelsInWords(dialog);
  await keepDialogScreenshot(page, dialog, 'review-dialog-finding-study-publication');
  await dialog.getByRole('button', { name: 'Record decision' }).click();

  await expect(
    dialog.getByText('Revision 1 created. New runs will see it; running sessions keep revision 0.'),
  ).toBeVisible();
  const accepted = dialog.getByRole('list', { name: 'Accepted' });
  await expect(accepted).toContainText(`Finding: ${STATEMENT}`);
  await expect(accepted).toContainText(`New study: ${STUDY}`);
  await expect(accepted).toContainText(`New publication: ${PUBLICATION}`);
  await expectLabelsInWords(dialog);
  await keepScreenshot(page, testInfo, 'review-dialog-accepted');
  await expectOneRevisionOfThree(page, documentId);
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(dialog).toBeHidden();
  expect(await dialogs(), 'the finding, its study and publication took one dialog').toBe(1);

  // The note shows what became of it, instead of the button.
  const row = noteRow(page);
  await expect(row.getByRole('link', { name: /Accepted/ })).toBeVisible();
  await expect(row.getByRole('button', { name: 'Propose for review' })).toHaveCount(0);
  expect(note).toMatch(/^lead:/);
  await keepScreenshot(page, testInfo, 'review-note-accepted');

  await expectHistoryInWords(page, documentId, testInfo);
});

test('the same by keyboard alone, and the dialog passes axe', async ({ page }, testInfo) => {
  test.setTimeout(90_000);
  const { documentId } = await newOwnerWithNote(page);
  await page.goto(panelPath(documentId));
  const dialogs = await countDialogs(page);
  const type = (text: string) => page.keyboard.type(text);
  const press = (key: string) => page.keyboard.press(key);

  const propose = noteRow(page).getByRole('button', { name: 'Propose for review' });
  await tabTo(page, propose);
  await press('Enter');
  const dialog = page.getByRole('dialog', { name: DIALOG });
  await expect(dialog).toBeVisible();
  const install = dialog.getByRole('button', { name: 'Install Research and go on' });
  await tabTo(page, install);
  await expectNoSeriousAxe(page, testInfo, 'review-dialog-offer');
  await press('Enter');

  // The keyboard goes on at "What is it?", on the finding.
  await expect(dialog.getByRole('radio', { name: 'Finding' })).toBeFocused();
  const finding = dialog.getByRole('group', { name: 'The finding' });
  await expect(finding.getByRole('textbox', { name: 'Statement (required)' })).toHaveValue(STATEMENT);

  await tabTo(page, finding.getByRole('button', { name: 'Interval (optional)' }));
  await press('Enter');
  await tabTo(page, finding.getByRole('textbox', { name: 'Low (required)' }));
  await type('30');
  await press('Tab');
  await type('44');
  await press('Tab');
  await type('0.95');

  await tabTo(page, finding.getByRole('button', { name: '+ New study…' }));
  await press('Enter');
  const study = finding.getByRole('group', { name: 'New study' });
  // The new study's first field has the keyboard.
  await expect(study.getByRole('textbox', { name: 'Title (required)' })).toBeFocused();
  await type(STUDY);
  await press('Tab');
  await expect(study.getByRole('combobox', { name: 'Design (required)' })).toBeFocused();
  await type('Cohort');
  await expect(
    study.getByRole('combobox', { name: 'Design (required)' }).locator('option:checked'),
  ).toHaveText('Cohort');
  await tabTo(page, study.getByRole('button', { name: '+ New publication…' }));
  await press('Enter');
  const publication = study.getByRole('group', { name: 'New publication' });
  await expect(publication.getByRole('textbox', { name: 'Title (required)' })).toBeFocused();
  await type(PUBLICATION);
  await tabTo(page, publication.getByRole('combobox', { name: 'Status (required)' }));
  await type('Published');

  await expect(dialog.getByText('✓ passage found in the source')).toBeVisible();
  await tabTo(page, dialog.getByRole('textbox', { name: 'Comment' }));
  await type('As the survey reports it.');
  await expectNoSeriousAxe(page, testInfo, 'review-dialog-form');
  await expectLabelsInWords(dialog);

  await tabTo(page, dialog.getByRole('button', { name: 'Record decision' }));
  await press('Enter');
  await expect(dialog.getByText(/^Revision 1 created\./)).toBeVisible();
  // The outcome has the keyboard: Close is focused, and Enter closes.
  await expect(dialog.getByRole('button', { name: 'Close' })).toBeFocused();
  await expectNoSeriousAxe(page, testInfo, 'review-dialog-outcome');
  await expectOneRevisionOfThree(page, documentId);
  await press('Enter');
  await expect(dialog).toBeHidden();
  expect(await dialogs()).toBe(1);
  // Back on the row it came from, which now says what became of the note.
  await expect(noteRow(page).getByRole('link', { name: /Accepted/ })).toBeVisible();
  await expectHistoryInWords(page, documentId, testInfo);
});

/** An axe check of the open dialog: no serious or critical violation. */
async function expectNoSeriousAxe(page: Page, testInfo: TestInfo, name: string) {
  const results = await new AxeBuilder({ page })
    .include('[role="dialog"]')
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'])
    .analyze();
  expect(results.passes.length, 'axe examined the dialog').toBeGreaterThan(10);
  await testInfo.attach(`axe-${name}.json`, {
    body: JSON.stringify(results.violations, null, 2),
    contentType: 'application/json',
  });
  expect(
    results.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
  ).toEqual([]);
}
