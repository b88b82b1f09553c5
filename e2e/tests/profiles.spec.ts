// Flow: a document without a profile → Propose for review on its working note opens the dialog,
// which says which profile fits (Research) → Document actions → Profiles → preview Language (kinds,
// fields with how each value is written, the example record as JSON) → Install on this document →
// installed state shown → the dialog now asks what the note is among Language's kinds, and still
// offers Research. The reef document shows the Research profile the demo installed.
import { expect, test } from '@playwright/test';
import {
  ADA,
  REEF_TITLE,
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

const SST_TITLE = 'Sea surface temperature on the northern reef, 1985–2016';

test('the owner previews a profile and installs it on a document', async ({ page, context }, testInfo) => {
  const ada = await login(ADA);
  const doc = await documentTitled(ada, SST_TITLE);
  const reef = await documentTitled(ada, REEF_TITLE);
  expect((await ada.api.profiles.installed.query({ documentId: doc.id })).map((p) => p.name)).not.toContain(
    'language',
  );
  const expected = await ada.api.profiles.preview.query({ name: 'language' });

  // A working note on a document where nothing is installed yet: the dialog says which profile fits.
  const run = await startChatRun(ada, doc.id, 'profiles');
  const note = `lead:sst-gap-${unique()}`;
  await run.agent.remember({ changes: [{ op: 'add', name: note, text: 'logger gaps 2012–2014' }] });
  await signInBrowser(context, ada);
  const installedBefore = await ada.api.profiles.installed.query({ documentId: doc.id });
  await page.goto(panelPath(doc.id, run.sessionId));
  const { notes } = panelSections(page);
  await expect(notes.getByRole('button', { name: new RegExp(literal(note)) })).toBeVisible();
  await notes.getByRole('button', { name: 'Propose for review' }).click();
  const offering = page.getByRole('dialog', { name: 'Propose for review: “logger gaps 2012–2014”' });
  if (installedBefore.length === 0) {
    await expect(offering.getByRole('group', { name: 'The Research profile' })).toContainText(
      'Research fits this note',
    );
  }
  await offering.getByRole('button', { name: 'Cancel' }).click();
  await expect(offering).toBeHidden();

  // Document actions → Profiles.
  await page.goto(`/documents/${encodeURIComponent(doc.id)}`);
  await page.getByRole('button', { name: 'Document actions' }).click();
  await page.getByRole('menuitem', { name: 'Profiles' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Profiles' })).toBeVisible();
  const packs = page.getByRole('list', { name: 'Profiles' }).getByRole('listitem');
  await expect(packs).toHaveCount(3);
  const language = packs.filter({ has: page.getByRole('heading', { name: /^Language/ }) });
  await expect(language).toContainText('Not installed on this document');
  await expect(language).toContainText('Kinds: sense, term, translation, usage-example');

  // Preview: every kind, its fields with their codecs, and the example record.
  await language.getByRole('button', { name: 'Preview Language' }).click();
  await expect(language.getByRole('button', { name: 'Preview Language' })).toHaveAttribute(
    'aria-pressed',
    'true',
  );
  const preview = page.getByRole('region', { name: `Preview: Language ${expected.version}` });
  await expect(preview).toBeVisible();
  for (const kind of expected.kinds) {
    const section = preview.getByRole('region', { name: `Kind ${kind.name}` });
    await expect(section).toBeVisible();
    for (const field of kind.fields) {
      const row = section.getByRole('row', { name: new RegExp(`^${field.name}\\b`) });
      await expect(row).toContainText(field.required ? 'required' : 'optional');
      await expect(row).toContainText(field.codec.summary);
    }
  }
  await expect(
    preview.getByRole('heading', { name: `Example record (${expected.example.kind})` }),
  ).toBeVisible();
  await expect(preview.locator('pre')).toHaveText(JSON.stringify(expected.example, null, 2));
  await keepScreenshot(page, testInfo, 'profiles-preview');

  // Install it here; the installed state shows in the preview and in the list.
  await preview.getByRole('button', { name: 'Install on this document' }).click();
  await expect(preview.getByRole('status')).toHaveText('✓ Installed on this document');
  await expect(preview.getByRole('button', { name: /Install/ })).toHaveCount(0);
  await expect(language).toContainText(`Installed ${expected.version}`);
  const installed = await ada.api.profiles.installed.query({ documentId: doc.id });
  expect(installed.find((p) => p.name === 'language')).toMatchObject({
    version: expected.version,
    digest: expected.digest,
    current: true,
  });
  // It survives a reload (it is on record, not in the page).
  await page.reload();
  await expect(
    page
      .getByRole('list', { name: 'Profiles' })
      .getByRole('listitem')
      .filter({ has: page.getByRole('heading', { name: /^Language/ }) }),
  ).toContainText(`Installed ${expected.version}`);

  // Now the dialog asks what the note is among the Language kinds, by their labels, and still
  // says that Research (not installed) describes findings.
  await page.goto(panelPath(doc.id, run.sessionId));
  const propose = panelSections(page).notes.getByRole('button', { name: 'Propose for review' });
  await expect(propose).toHaveCount(1);
  await propose.click();
  const dialog = page.getByRole('dialog', { name: 'Propose for review: “logger gaps 2012–2014”' });
  await expect(dialog.getByRole('radio', { name: 'Term' })).toHaveCount(1);
  await expect(dialog.getByRole('radio', { name: 'Usage example' })).toHaveCount(1);
  await expect(dialog.getByRole('group', { name: 'The Research profile' })).toBeVisible();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();

  // The reef document shows the Research profile the demo seed installed.
  await page.goto(`/documents/${encodeURIComponent(reef.id)}/profiles`);
  const research = page
    .getByRole('list', { name: 'Profiles' })
    .getByRole('listitem')
    .filter({ has: page.getByRole('heading', { name: /^Research/ }) });
  await expect(research).toContainText(/Installed \d+\.\d+\.\d+/);
});
