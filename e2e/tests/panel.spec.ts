// Flow: sign in → library → the reef document → Document actions → Memory, on the demo run's
// session: both lists with the demo notes and the reviewed knowledge, the start time and a live
// countdown, a row opened to its text, conflicts marked on both rows. And a session of its own: the
// panel's words — which revision the session sees and the line once a newer one is accepted, every
// working note with Propose for review until it is accepted ("Accepted as a finding, rev N →"), and
// what recall found, counted as the run's transcript counts it.
import { expect, test } from '@playwright/test';
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
  shortDigest,
  signInBrowser,
  unique,
} from './support.ts';

/** A sentence of the reef document's text (Results), cited by the finding. */
const PASSAGE =
  'Sites with high densities of grazing fish regained a third of their lost cover within four years';

test('the owner opens the Memory panel from the document and reads the demo session', async ({
  page,
}, testInfo) => {
  // What the panel should show, straight from the API. The demo run is the oldest on the document
  // (other flows may have added newer runs, and without ?session the panel shows the newest).
  const ada = await login(ADA);
  const reef = await documentTitled(ada, REEF_TITLE);
  const runs = await ada.api.runs.list.query({ documentId: reef.id });
  const demoSessionId = runs.at(-1)?.sessionId;
  expect(demoSessionId, 'the demo seed has a chat run with memory on the reef document').toBeTruthy();
  if (!demoSessionId) return;
  const expected = await ada.api.memory.panel.query({ documentId: reef.id, sessionId: demoSessionId });
  expect(expected.session?.state).toBe('open');
  const noteNames = expected.workingNotes.map((n) => n.name);
  expect(noteNames).toEqual(
    expect.arrayContaining(['lead:reef-survey-2016', 'ruled-out:dataset-2014', 'todo:check-figure-3']),
  );
  expect(expected.reviewedInView.map((r) => r.name)).toContain('finding:bleaching-threshold');

  // Sign in through the UI, as a person does.
  await page.goto('/');
  await expect(page).toHaveURL(/\/signin/);
  await page.getByRole('button', { name: `Sign in as ${ADA}` }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Library' })).toBeVisible();

  await page.getByRole('link', { name: REEF_TITLE }).click();
  await expect(page.getByRole('heading', { level: 1, name: REEF_TITLE })).toBeVisible();

  await page.getByRole('button', { name: 'Document actions' }).click();
  await page.getByRole('menuitem', { name: 'Memory' }).click();
  await expect(page).toHaveURL(new RegExp(`/documents/${literal(encodeURIComponent(reef.id))}/memory`));
  await expect(page.getByRole('heading', { level: 1, name: 'Memory' })).toBeVisible();

  // Without ?session the newest session is chosen (the picker lists them newest first); the
  // demo run's is among them. Choose it.
  const picker = page.getByLabel('Session');
  const newest = await picker.locator('option').first().getAttribute('value');
  await expect(picker).toHaveValue(newest ?? '');
  await expect(picker.locator(`option[value="${demoSessionId}"]`)).toHaveCount(1);
  await picker.selectOption(demoSessionId);
  await expect(page).toHaveURL(new RegExp(`[?&]session=${literal(demoSessionId)}`));
  await expect(picker).toHaveValue(demoSessionId);

  await expect(
    page.getByText('Remembered notes are not evidence: they need review before they can support a claim.'),
  ).toBeVisible();

  // Both lists, with their exact titles and descriptions.
  const { notes, reviewed } = panelSections(page);
  await expect(notes.getByRole('heading', { level: 2, name: 'Working notes' })).toBeVisible();
  await expect(notes).toHaveAccessibleDescription('Private notes the agent wrote for itself in this session');
  await expect(reviewed.getByRole('heading', { level: 2, name: 'Reviewed knowledge in view' })).toBeVisible();
  await expect(reviewed).toHaveAccessibleDescription(
    'Reviewed knowledge the agent can read here but not change',
  );

  const noteRows = notes.getByRole('button', { expanded: false });
  await expect(noteRows).toHaveCount(expected.workingNotes.length);
  await expect(notes).toContainText(`${expected.workingNotes.length} notes`);
  for (const note of expected.workingNotes) {
    const row = notes.getByRole('button', { name: new RegExp(`${literal(note.name)}\\b`) });
    await expect(row).toBeVisible();
    await expect(row).toContainText(note.kind);
    await expect(row).toContainText(shortDigest(note.digest));
    await expect(row).toContainText('agent');
  }
  const reviewedRows = reviewed.getByRole('button', { expanded: false });
  await expect(reviewedRows).toHaveCount(expected.reviewedInView.length);
  for (const rec of expected.reviewedInView) {
    const row = reviewed.getByRole('button', { name: new RegExp(literal(rec.name)) });
    await expect(row).toContainText(shortDigest(rec.digest));
    await expect(row).toContainText(`reviewed by ${ADA}`);
    await expect(row).toContainText(`rev ${rec.revision}`);
  }
  await expect(reviewed).toContainText(
    `Reviewed knowledge as of revision ${expected.session?.pinnedRevision}`,
  );

  // When it started, and a countdown to when it forgets that ticks.
  const session = expected.session!;
  const started = page.getByText(/^Started \d{2}:\d{2}/);
  await expect(started).toBeVisible();
  await expect(started).toHaveAttribute('title', session.startedAt);
  const countdown = page.getByText(/^Forgets in /);
  await expect(countdown).toHaveText(/^Forgets in (\d+ h )?(\d+ m )?\d+ s \(\d{2}:\d{2} (today|tomorrow)\)$/);
  await expect(countdown).toHaveAttribute('title', session.forgetsAt);
  expect(Date.parse(session.forgetsAt) - Date.parse(session.startedAt)).toBe(24 * 3600 * 1000);
  const first = await countdown.textContent();
  await expect.poll(() => countdown.textContent(), { timeout: 5_000 }).not.toBe(first);

  // A row opens to show its text, data and links.
  const lead = expected.workingNotes.find((n) => n.name === 'lead:reef-survey-2016')!;
  const leadRow = notes.getByRole('button', { name: /lead:reef-survey-2016/ });
  await leadRow.click();
  await expect(leadRow).toHaveAttribute('aria-expanded', 'true');
  const leadDetail = page.locator(`#${await leadRow.getAttribute('aria-controls')}`);
  await expect(leadDetail).toBeVisible();
  await expect(leadDetail).toContainText(lead.text);
  await expect(leadDetail).toContainText(lead.digest);
  for (const link of lead.links) await expect(leadDetail).toContainText(link.to);
  await leadRow.click();
  await expect(leadRow).toHaveAttribute('aria-expanded', 'false');
  await expect(leadDetail).toBeHidden();

  // Conflicts: the working note and the reviewed record share a name with different content; both
  // rows say so, and neither is resolved away.
  const clash = 'finding:bleaching-threshold';
  const clashNote = expected.workingNotes.find((n) => n.name === clash)!;
  const clashReviewed = expected.reviewedInView.find((r) => r.name === clash)!;
  expect(clashNote.digest).not.toBe(clashReviewed.digest);
  const noteRow = notes.getByRole('button', { name: new RegExp(literal(clash)) });
  const reviewedRow = reviewed.getByRole('button', { name: new RegExp(literal(clash)) });
  await expect(noteRow).toContainText(`⚠ conflicts with ${clashNote.conflicts.length}`);
  await expect(reviewedRow).toContainText(`⚠ conflicts with ${clashReviewed.conflicts.length}`);
  await reviewedRow.click();
  const reviewedDetail = page.locator(`#${await reviewedRow.getAttribute('aria-controls')}`);
  await expect(reviewedDetail).toContainText(clashReviewed.text);
  await expect(reviewedDetail).toContainText(clashReviewed.passage);
  await expect(reviewedDetail).toContainText(/working note, same name, different content/);
  // Rows without a conflict carry no mark.
  const todoRow = notes.getByRole('button', { name: /todo:check-figure-3/ });
  await expect(todoRow).not.toContainText('conflicts');

  await keepScreenshot(page, testInfo, 'memory-panel');
});

test("the panel's words: the revision the session sees, a newer one, a note's review and what recall found", async ({
  page,
  context,
}, testInfo) => {
  const { ada, reef, run } = await adaRunOnReef('panel words');
  const slug = unique();
  const lead = `lead:grazers-${slug}`;
  const todo = `todo:grazers-${slug}`;
  await run.agent.remember({
    changes: [
      { op: 'add', name: lead, text: 'Grazing fish decided how fast the reef sites recovered.' },
      { op: 'add', name: todo, text: 'check which survey table 2 uses' },
    ],
  });
  // Recall in shadow mode (the server's default): it looks, and shows the agent nothing.
  const recalled = await run.agent.recall({ text: 'grazing fish recovery' });
  expect(recalled).toMatchObject({ mode: 'shadow', rows: [] });
  const before = await ada.api.memory.panel.query({ documentId: reef.id, sessionId: run.sessionId });
  const pinned = before.session!.pinnedRevision;
  expect(pinned).toBeGreaterThan(0);
  expect(before.latestRevision).toBe(pinned);
  const found = before.recentRecalls[0]!.results.length;

  await signInBrowser(context, ada);
  await page.goto(panelPath(reef.id, run.sessionId));
  const { notes, reviewed } = panelSections(page);
  const row = (name: string) => notes.getByRole('listitem').filter({ hasText: name });
  await expect(row(lead)).toBeVisible();

  // The header in the one date style; the revision the session sees, and nothing newer yet.
  await expect(page.getByText(/^Started \d{2}:\d{2} today$/)).toBeVisible();
  await expect(reviewed).toContainText(`Reviewed knowledge as of revision ${pinned}`);
  await expect(page.getByText(/has been accepted since/)).toHaveCount(0);
  await expect(page.getByText(/pinned at|\(shadow\)|shadow:|Recent recalls/)).toHaveCount(0);

  // Every working note offers Propose for review.
  await expect(row(lead).getByRole('button', { name: 'Propose for review' })).toBeVisible();
  await expect(row(todo).getByRole('button', { name: 'Propose for review' })).toBeVisible();

  // What recall found, in words, counted as the run's transcript counts it.
  const recalls = page.getByRole('region', { name: 'Similar notes found (not shown to the agent)' });
  await expect(recalls).toBeVisible();
  const foundWords =
    found === 0 ? 'found no similar notes' : `found ${found} similar note${found === 1 ? '' : 's'}`;
  await expect(recalls.getByRole('listitem').first()).toContainText(
    new RegExp(`^\\d{2}:\\d{2} today · ${foundWords}`),
  );
  await expect(recalls).toContainText('1 search');
  await keepScreenshot(page, testInfo, 'memory-panel-words');

  // The lead is accepted as a finding: a newer revision than the session's.
  const decided = await ada.api.review.decide.mutate({
    documentId: reef.id,
    fromSession: run.sessionId,
    fromNote: lead,
    profile: 'research',
    kind: 'finding',
    name: `finding:grazers-${slug}`,
    text: 'Grazing fish decided how fast the reef sites recovered.',
    fields: {
      statement: 'Grazing fish decided how fast the reef sites recovered.',
      study: 'study:reef-resurvey-2016',
      sample: 'sample:reef-sites-112',
    },
    sourceDocumentId: reef.id,
    passage: PASSAGE,
    decision: 'accept',
    comment: 'As the results say.',
  });
  const revision = decided.revision!;
  expect(revision).toBeGreaterThan(pinned);
  await page.reload();

  // The session keeps its revision, and says a newer one exists that new runs will see.
  await expect(reviewed).toContainText(`Reviewed knowledge as of revision ${pinned}`);
  await expect(
    page.getByText(`Revision ${revision} has been accepted since; new runs will see it.`),
  ).toBeVisible();
  // The accepted note says so and links to the review history; it is not offered for review again.
  const accepted = row(lead).getByRole('link', { name: `Accepted as a finding, rev ${revision}` });
  await expect(accepted).toHaveText(`✓ Accepted as a finding, rev ${revision} →`);
  await expect(accepted).toHaveAttribute('href', `/documents/${encodeURIComponent(reef.id)}/reviews`);
  await expect(row(lead).getByRole('button', { name: /Propose/ })).toHaveCount(0);
  await expect(row(todo).getByRole('button', { name: 'Propose for review' })).toBeVisible();
  await keepScreenshot(page, testInfo, 'memory-panel-accepted');

  // The run's transcript counts the recall as the panel does.
  await page.goto(`/documents/${encodeURIComponent(reef.id)}`);
  const ourRun = page
    .getByRole('region', { name: 'Runs' })
    .getByRole('article')
    .filter({ hasText: run.label });
  const card =
    found === 0 ? 'Found no similar notes' : `Found ${found} similar note${found === 1 ? '' : 's'}`;
  await expect(ourRun).toContainText(`${card} — not shown to the agent`);
  await expect(ourRun).not.toContainText(/Recalled \d+ note/);
  await expect(ourRun.getByRole('heading', { level: 3 })).toHaveText(
    /^Chat run · (just now|\d+ min ago) · open$/,
  );
  await keepScreenshot(page, testInfo, 'transcript-recall');
});
