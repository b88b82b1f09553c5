/**
 * The demo library: a few short articles, enough to show the document page, sharing,
 * publishing and a Memory panel with real content. Invented text, written to read plausibly.
 */
export const DEMO_USERS = [
  { id: 'user-ada', name: 'Ada Lovelace' },
  { id: 'user-grace', name: 'Grace Hopper' },
  { id: 'user-rosalind', name: 'Rosalind Franklin' },
] as const;

export const REEF_DOCUMENT_ID = 'doc-reef-recovery-2016';

/** The passage the reviewed finding cites; it must occur verbatim in the reef document's text. */
export const BLEACHING_PASSAGE =
  'Colonies exposed to more than 8 degree heating weeks bleached in over 90 percent of surveyed sites, while sites below 4 degree heating weeks bleached in fewer than 30 percent.';

export interface DemoDocument {
  id: string;
  ownerId: string;
  title: string;
  authors: string[];
  abstract: string;
  text: string;
  sharedWith?: string[];
  published?: boolean;
}

export const DEMO_DOCUMENTS: DemoDocument[] = [
  {
    id: REEF_DOCUMENT_ID,
    ownerId: 'user-ada',
    title: 'Reef recovery after the 2016 bleaching',
    authors: ['M. Okafor', 'L. Brandt', 'J. Tamura'],
    abstract:
      'Repeat surveys of 112 reef sites before and for four years after the 2016 marine heatwave show that recovery of coral cover depended on heat exposure, herbivore density and larval supply.',
    sharedWith: ['user-rosalind'],
    text: [
      'The 2016 marine heatwave produced the most extensive coral bleaching recorded on the northern reef. We resurveyed 112 sites that had been mapped in 2015 and followed them through 2020.',
      `Heat exposure explained most of the difference between sites. ${BLEACHING_PASSAGE} Mortality followed the same gradient, with a median loss of 51 percent of hard coral cover at the most exposed sites.`,
      'Recovery was uneven. Sites with high densities of grazing fish regained a third of their lost cover within four years, while sites dominated by macroalgae after the event showed almost no recovery. Fast-growing branching corals accounted for most of the regained cover.',
      'Larval supply limited recovery at isolated sites. Settlement tiles deployed in 2017 and 2018 recorded ten times fewer recruits at sites more than 30 kilometres from the nearest healthy reef.',
      'We conclude that reefs can recover from a single severe bleaching event within a decade, but only where herbivores keep algae in check and where surviving reefs nearby supply larvae. Repeated heatwaves at shorter intervals would outpace this recovery.',
    ].join('\n\n'),
  },
  {
    id: 'doc-sea-surface-temperature',
    ownerId: 'user-ada',
    title: 'Sea surface temperature on the northern reef, 1985–2016',
    authors: ['R. Nakamura', 'E. Fischer'],
    abstract:
      'Satellite and logger records of sea surface temperature over three decades, and the degree heating weeks metric used to predict bleaching.',
    text: [
      'Daily sea surface temperatures from satellite retrievals were combined with in-water loggers at 23 stations.',
      'Degree heating weeks accumulate temperature anomalies above the local maximum monthly mean over a rolling twelve-week window. Values above 4 predict significant bleaching; values above 8 predict widespread bleaching and mortality.',
      'The logger network has gaps between 2012 and 2014, so the combined dataset ends in 2014 for five of the southern stations.',
    ].join('\n\n'),
  },
  {
    id: 'doc-survey-methods',
    ownerId: 'user-ada',
    title: 'Aerial and in-water survey methods for coral cover',
    authors: ['S. Haddad'],
    abstract:
      'A comparison of aerial bleaching scores with in-water transects, and how to calibrate one against the other.',
    text: [
      'Aerial surveys score bleaching in five categories from a light aircraft flying at 150 metres.',
      'In-water transects record the cover of each coral growth form along 50-metre tapes at two depths.',
      'Aerial scores agree with in-water estimates at high and low bleaching, but overestimate moderate bleaching on reef slopes.',
    ].join('\n\n'),
  },
  {
    id: 'doc-seagrass-carbon',
    ownerId: 'user-grace',
    title: 'Seagrass meadows as carbon sinks',
    authors: ['P. Alvarez', 'K. Lindqvist'],
    abstract:
      'How much carbon seagrass sediments store, how long they keep it, and what happens when meadows are lost.',
    published: true,
    text: [
      'Seagrass meadows cover less than 0.2 percent of the ocean floor yet bury a tenth of the organic carbon that reaches marine sediments each year.',
      'Cores from 40 meadows show carbon stocks that vary tenfold with sediment grain size and meadow age.',
      'Where meadows were lost, the top metre of sediment released up to half of its carbon within two decades.',
    ].join('\n\n'),
  },
  {
    id: 'doc-larval-connectivity',
    ownerId: 'user-grace',
    title: 'Larval supply and reef connectivity',
    authors: ['D. Mensah'],
    abstract: 'Dispersal models and settlement data describing how far coral larvae travel between reefs.',
    text: [
      'Most coral larvae settle within a few kilometres of the reef that spawned them, but a small fraction travel more than 100 kilometres.',
      'Connectivity models predict which reefs act as sources of larvae for their neighbours after a disturbance.',
    ].join('\n\n'),
  },
];
