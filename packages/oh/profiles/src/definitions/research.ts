import type { PackDefinition } from '../pack.ts';

const PUBLICATION_STATUSES = ['preprint', 'accepted', 'published', 'retracted'] as const;

/** Research: publications and their versions, studies, methods, samples, findings, corrections. */
export const research = {
  name: 'research',
  version: '1.0.0',
  title: 'Research',
  description:
    'Scholarly evidence: publications through their versions (preprint, accepted, published, retracted), ' +
    'the studies they report, methods and samples, the findings those studies make, and corrections.',
  kinds: {
    publication: {
      description: 'A paper, preprint, report or book chapter, with the versions it went through.',
      fields: {
        title: {
          codec: { type: 'text', maxLength: 1000 },
          required: true,
          description: 'Title as published.',
        },
        authors: {
          codec: { type: 'list', of: { type: 'text', maxLength: 300 }, maxItems: 500 },
          required: false,
          description: 'Authors in byline order.',
        },
        venue: {
          codec: { type: 'text', maxLength: 300 },
          required: false,
          description: 'Journal, conference or server.',
        },
        status: {
          codec: { type: 'enum', values: PUBLICATION_STATUSES },
          required: true,
          description: 'The current status: the latest version’s.',
        },
        doi: { codec: { type: 'doi' }, required: false, description: 'DOI of the version of record.' },
        url: { codec: { type: 'url' }, required: false, description: 'Where the publication can be read.' },
        published: {
          codec: { type: 'date' },
          required: false,
          description: 'Date of the version of record.',
        },
        language: { codec: { type: 'language' }, required: false, description: 'Language of the text.' },
        versions: {
          codec: {
            type: 'list',
            maxItems: 20,
            of: {
              type: 'object',
              fields: {
                status: {
                  codec: { type: 'enum', values: PUBLICATION_STATUSES },
                  required: true,
                  description: 'What this version is.',
                },
                date: { codec: { type: 'date' }, required: true, description: 'When this version appeared.' },
                doi: {
                  codec: { type: 'doi' },
                  required: false,
                  description: 'DOI of this version, if it has its own.',
                },
                url: {
                  codec: { type: 'url' },
                  required: false,
                  description: 'Where this version can be read.',
                },
                note: {
                  codec: { type: 'text', maxLength: 500 },
                  required: false,
                  description: 'What changed.',
                },
              },
            },
          },
          required: false,
          description: 'The versions in order, oldest first.',
        },
      },
      relations: {},
    },
    study: {
      description: 'A piece of empirical work reported by one or more publications.',
      fields: {
        title: {
          codec: { type: 'text', maxLength: 500 },
          required: true,
          description: 'A short name for the study.',
        },
        design: {
          codec: {
            type: 'enum',
            values: [
              'randomized-controlled-trial',
              'cohort',
              'case-control',
              'cross-sectional',
              'case-report',
              'systematic-review',
              'meta-analysis',
              'qualitative',
              'simulation',
              'other',
            ],
          },
          required: true,
          description: 'Study design.',
        },
        reportedIn: {
          codec: {
            type: 'list',
            of: { type: 'ref', kinds: ['publication'] },
            minItems: 1,
            maxItems: 20,
            unique: true,
          },
          required: true,
          description: 'Publications that report the study.',
        },
        methods: {
          codec: { type: 'list', of: { type: 'ref', kinds: ['method'] }, maxItems: 50, unique: true },
          required: false,
          description: 'Methods the study uses.',
        },
        registration: {
          codec: { type: 'text', maxLength: 100 },
          required: false,
          description: 'Registry identifier, e.g. NCT01234567.',
        },
      },
      relations: {
        reported_in: {
          to: ['publication'],
          field: 'reportedIn',
          description: 'The study is reported in these publications.',
        },
        uses: { to: ['method'], field: 'methods', description: 'The study uses these methods.' },
      },
    },
    method: {
      description: 'A procedure, instrument or analysis a study uses.',
      fields: {
        name: { codec: { type: 'text', maxLength: 200 }, required: true, description: 'Name of the method.' },
        description: {
          codec: { type: 'text', maxLength: 4000 },
          required: false,
          description: 'What it does.',
        },
        category: {
          codec: {
            type: 'enum',
            values: [
              'experimental',
              'observational',
              'statistical',
              'computational',
              'survey',
              'qualitative',
              'other',
            ],
          },
          required: false,
          description: 'Broad family.',
        },
        url: { codec: { type: 'url' }, required: false, description: 'Protocol or documentation.' },
      },
      relations: {},
    },
    sample: {
      description: 'The people, organisms or items a study observed.',
      fields: {
        size: {
          codec: { type: 'integer', min: 0 },
          required: true,
          description: 'Number of units observed.',
        },
        population: {
          codec: { type: 'text', maxLength: 1000 },
          required: true,
          description: 'Who or what the units are.',
        },
        study: {
          codec: { type: 'ref', kinds: ['study'] },
          required: true,
          description: 'The study the sample belongs to.',
        },
        setting: {
          codec: { type: 'text', maxLength: 500 },
          required: false,
          description: 'Where and when it was drawn.',
        },
      },
      relations: {
        of_study: { to: ['study'], field: 'study', description: 'The sample was drawn for this study.' },
      },
    },
    finding: {
      description: 'A result a study reports, with its effect where there is one.',
      fields: {
        statement: {
          codec: { type: 'text', maxLength: 2000 },
          required: true,
          description: 'The finding in one or two sentences.',
        },
        study: {
          codec: { type: 'ref', kinds: ['study'] },
          required: true,
          description: 'The study that makes the finding.',
        },
        sample: {
          codec: { type: 'ref', kinds: ['sample'] },
          required: false,
          description: 'The sample it holds for.',
        },
        effect: {
          codec: { type: 'quantity' },
          required: false,
          description: 'Effect size with its unit (1 for a ratio, % for a percentage).',
        },
        effectMeasure: {
          codec: {
            type: 'enum',
            values: [
              'mean-difference',
              'standardized-mean-difference',
              'odds-ratio',
              'risk-ratio',
              'hazard-ratio',
              'correlation',
              'percent-change',
              'other',
            ],
          },
          required: false,
          description: 'What the effect measures.',
        },
        interval: {
          codec: {
            type: 'object',
            fields: {
              low: {
                codec: { type: 'decimal' },
                required: true,
                description: 'Lower bound, in the effect’s unit.',
              },
              high: {
                codec: { type: 'decimal' },
                required: true,
                description: 'Upper bound, in the effect’s unit.',
              },
              level: {
                codec: { type: 'decimal', min: '0', max: '1' },
                required: true,
                description: 'Confidence level, e.g. 0.95.',
              },
            },
          },
          required: false,
          description: 'Confidence interval of the effect.',
        },
        pValue: {
          codec: { type: 'decimal', min: '0', max: '1' },
          required: false,
          description: 'Reported p-value.',
        },
      },
      relations: {
        from_study: { to: ['study'], field: 'study', description: 'The finding comes from this study.' },
        in_sample: { to: ['sample'], field: 'sample', description: 'The finding holds in this sample.' },
      },
    },
    correction: {
      description: 'An erratum, corrigendum, retraction or expression of concern.',
      fields: {
        corrects: {
          codec: { type: 'ref', kinds: ['finding', 'publication'] },
          required: true,
          description: 'The finding or publication corrected.',
        },
        type: {
          codec: {
            type: 'enum',
            values: ['erratum', 'corrigendum', 'retraction', 'expression-of-concern', 'other'],
          },
          required: true,
          description: 'What kind of correction.',
        },
        date: { codec: { type: 'date' }, required: true, description: 'When the correction was issued.' },
        reason: {
          codec: { type: 'text', maxLength: 2000 },
          required: true,
          description: 'Why, as the notice states.',
        },
        notice: { codec: { type: 'url' }, required: false, description: 'Where the notice is.' },
        doi: { codec: { type: 'doi' }, required: false, description: 'DOI of the notice.' },
      },
      relations: {
        corrects: {
          to: ['finding', 'publication'],
          field: 'corrects',
          description: 'The correction amends this record.',
        },
      },
    },
  },
  example: {
    kind: 'finding',
    fields: {
      statement: 'Daily supplementation lowered systolic blood pressure by 4.1 mmHg compared with placebo.',
      study: 'study:supplement-trial-2019',
      sample: 'sample:supplement-trial-2019-adults',
      effect: { value: '-4.1', unit: 'mm[Hg]' },
      effectMeasure: 'mean-difference',
      interval: { low: '-6.3', high: '-1.9', level: '0.95' },
      pValue: '0.001',
    },
  },
} satisfies PackDefinition;
