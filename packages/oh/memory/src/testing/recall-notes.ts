/**
 * Three notes that recall tells apart, in the store's tests and through the API: two on reef
 * recovery (a lead and a finding) and one on another subject.
 */
export const RECALL_NOTES = [
  {
    op: 'add' as const,
    name: 'lead:reef-heat',
    text: 'Coral reefs bleached after the marine heatwave; recovery took years.',
  },
  { op: 'add' as const, name: 'lead:seagrass', text: 'Seagrass meadows store carbon in their sediments.' },
  {
    op: 'add' as const,
    name: 'finding:larvae',
    text: 'Larval supply from nearby reefs limited recovery at isolated sites.',
  },
];
