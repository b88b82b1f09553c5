// Flow: search that can say no (SPEC §6d, issue 40). A word that is in no document (ETXTBSY) gets
// "No passage of your library matches" with the query, not passages scored 0.22; a question about
// a document's passage finds it with the question's words marked, and the hit opens the document
// at that passage, highlighted, by the link a citation chip uses (?page=&quote=).
import { expect, test } from '@playwright/test';
import { ADA, keepScreenshot, login, signInBrowser, unique } from './support.ts';

const PASSAGE =
  'Urchin density dropped below four animals per square metre after the sea otters returned to the coves.';

test('search says when nothing matches, marks what matched, and opens a hit at its passage', async ({
  page,
  context,
}, testInfo) => {
  const ada = await login(ADA);
  const title = `Southern coves field notes ${unique()}`;
  const { id } = await ada.api.documents.add.mutate({
    title,
    text: `Southern coves were surveyed in March along six transects; the kelp canopy was thin on the outer reef.\n\n${PASSAGE}\n\nThe divers counted fish at dusk on each transect.`,
  });
  await expect
    .poll(async () => (await ada.api.documents.list.query()).find((d) => d.id === id)?.index?.state, {
      timeout: 20_000,
    })
    .toBe('ready');
  await signInBrowser(context, ada);
  await page.goto('/');
  const box = page.getByRole('searchbox', { name: 'Search your documents' });
  const search = page.getByRole('button', { name: 'Search', exact: true });

  // A term no document holds: the library says so, with the query, and lists nothing.
  await box.fill('ETXTBSY');
  await search.click();
  await expect(page.getByText('No passage of your library matches “ETXTBSY”.')).toBeVisible();
  await expect(page.getByRole('list', { name: 'Search results' })).toHaveCount(0);
  await keepScreenshot(page, testInfo, 'search-no-match');

  // A question about the passage finds it; the words it shares with the question are marked.
  await box.fill('What happened to urchin density after the otters came back?');
  await search.click();
  const hit = page
    .getByRole('list', { name: 'Search results' })
    .getByRole('listitem')
    .filter({ has: page.getByRole('link', { name: title }) });
  await expect(hit).toContainText('four animals per square metre');
  const marked = await hit.locator('mark').allTextContents();
  expect(marked.map((w) => w.toLowerCase()).sort()).toEqual(['density', 'otters', 'urchin']);
  await keepScreenshot(page, testInfo, 'search-hit');

  // The hit opens its document at the passage, highlighted and scrolled to.
  await hit.getByRole('link', { name: title }).click();
  await expect(page.getByRole('heading', { level: 1, name: title })).toBeVisible();
  await expect(page).toHaveURL(/\?page=1&quote=Urchin\+density\+dropped/);
  const highlighted = page.getByRole('article', { name: 'Document' }).locator('mark.quoted');
  await expect(highlighted).toHaveText(PASSAGE);
  await expect(highlighted).toBeInViewport();
  await keepScreenshot(page, testInfo, 'search-hit-opened');
});
